import Foundation
import Logging

/// Finds every node that mDNS or the bucket knows, merges them by id, and asks each
/// whether it answers now. Either source may fail; the other still counts, and the failure
/// is reported.
public struct FleetDiscovery: Sendable {
    /// The longest mDNS answers are listened for; the browse usually ends after about 1 s,
    /// when avahi says no more are likely.
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

    /// The whole fleet, once mDNS has been heard. `recordedEarly` gets, before that, the
    /// nodes the bucket's registry lists, each asked at its recorded addresses, so that work on
    /// those that answer need not wait for mDNS (about 1 s). A node is asked again only when
    /// mDNS gave it an address its first probe did not try.
    public func discover(recordedEarly: @Sendable ([FleetNode]) async -> Void = { _ in }) async -> Result {
        async let announced = browse()
        let (records, bucketError) = await records()
        let recorded = await probeAll(Self.merge(records: records, announced: []))
        // Without mDNS nothing more is coming: the whole fleet is handed over at once.
        if useMDNS, !recorded.isEmpty { await recordedEarly(recorded) }
        let (mdns, mdnsError) = await announced
        let probedFirst = Dictionary(recorded.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var settled: [FleetNode] = []
        var unsettled: [FleetNode] = []
        for var node in Self.merge(records: records, announced: mdns) {
            if let first = probedFirst[node.id], first.online || first.urls == node.urls {
                node.live = first.live
                node.unreachable = first.unreachable
                settled.append(node)
            } else {
                unsettled.append(node)
            }
        }
        let nodes = settled + (await probeAll(unsettled))
        return Result(nodes: nodes.sorted { ($0.name, $0.id) < ($1.name, $1.id) }, bucketError: bucketError, mdnsError: mdnsError)
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
