import Foundation
import Logging

/// Finds every node that mDNS or the bucket knows, merges them by id, and asks each
/// whether it answers now. Either source may fail; the other still counts, and the failure
/// is reported.
public struct FleetDiscovery: Sendable {
    /// How long mDNS answers are listened for.
    public static let mdnsWindow: Duration = .seconds(3)
    static let parallelProbes = 16

    let http: FleetHTTP
    let bucket: S3Client?
    let useMDNS: Bool
    let logger: Logger

    public init(http: FleetHTTP, bucket: S3Client?, useMDNS: Bool = true, logger: Logger) {
        self.http = http
        self.bucket = bucket
        self.useMDNS = useMDNS
        self.logger = logger
    }

    public struct Result: Sendable, Codable {
        public var nodes: [FleetNode]
        /// Why the bucket could not be listed (nil: listed, or no bucket configured).
        public var bucketError: String?
        public var mdnsError: String?
    }

    public func discover() async -> Result {
        async let announced = browse()
        async let recorded = records()
        let (mdns, mdnsError) = await announced
        let (records, bucketError) = await recorded
        let merged = Self.merge(records: records, announced: mdns)
        return Result(nodes: await probeAll(merged), bucketError: bucketError, mdnsError: mdnsError)
    }

    private func browse() async -> ([DiscoveredService], String?) {
        guard useMDNS else { return ([], nil) }
        do {
            let browser = EdgeServerBrowser(serviceType: NodeAdvertisement.serviceType, logger: logger)
            return (try await browser.findAll(window: Self.mdnsWindow), nil)
        } catch {
            return ([], "mDNS: \(error)")
        }
    }

    private func records() async -> ([NodeRecord], String?) {
        guard let bucket else { return ([], nil) }
        do {
            return (try await RegistryReader(client: bucket).records(), nil)
        } catch {
            return ([], "\(bucket.bucketDescription): \(error)")
        }
    }

    /// One entry per node id; an announcement without an id stands alone under its name.
    static func merge(records: [NodeRecord], announced: [DiscoveredService]) -> [FleetNode] {
        var nodes: [String: FleetNode] = [:]
        for record in records {
            nodes[record.id] = FleetNode(
                id: record.id, name: record.name, urls: record.apiURLs, foundBy: [.bucket], record: record, version: record.version)
        }
        for service in announced {
            let scheme = service.txt["tls"] == "on" ? "https" : "http"
            let host = service.host.contains(":") ? "[\(service.host.replacingOccurrences(of: "%", with: "%25"))]" : service.host
            let url = "\(scheme)://\(host):\(service.port)"
            let id = service.txt[NodeAdvertisement.idKey] ?? "mdns:\(service.name)"
            var node = nodes[id] ?? FleetNode(id: id, name: service.txt["name"] ?? service.name, urls: [], foundBy: [], version: service.txt["version"])
            node.urls = [url] + node.urls.filter { $0 != url }
            node.foundBy.insert(.mdns, at: 0)
            nodes[id] = node
        }
        return nodes.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    /// Each node's health, a few at a time.
    func probeAll(_ nodes: [FleetNode]) async -> [FleetNode] {
        let probe = NodeProbe(http: http)
        let probed = try? await BoundedTasks.map(nodes, limit: Self.parallelProbes) { node in
            var node = node
            switch await probe.probe(urls: node.urls, id: node.id.hasPrefix("mdns:") ? nil : node.id) {
            case .success(let answer):
                node.live = answer.live
                if node.id.hasPrefix("mdns:"), let id = answer.id { node.id = id }
            case .failure(let failure):
                node.unreachable = failure.description
            }
            return node
        }
        return probed ?? nodes
    }
}
