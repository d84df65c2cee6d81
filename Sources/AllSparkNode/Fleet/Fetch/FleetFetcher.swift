import Foundation
import Logging

/// `fleet fetch`: one time range from every node (or the named ones), a bounded number of
/// nodes at a time, into one folder per node plus `manifest.json`.
public struct FleetFetcher: Sendable {
    public struct Request: Sendable {
        public var startMs: Int64
        public var endMs: Int64
        public var output: URL
        /// Names or ids; nil: every node.
        public var nodes: [String]?
        public var clip: Bool
        public var tokens: FleetTokens
        public var parallelNodes: Int

        public init(startMs: Int64, endMs: Int64, output: URL, nodes: [String]?, clip: Bool, tokens: FleetTokens, parallelNodes: Int = 8) {
            self.startMs = startMs
            self.endMs = endMs
            self.output = output
            self.nodes = nodes
            self.clip = clip
            self.tokens = tokens
            self.parallelNodes = parallelNodes
        }
    }

    public struct UnknownNodes: Error, CustomStringConvertible {
        public let description: String
    }

    public static let manifestName = "manifest.json"

    let http: FleetHTTP
    let bucket: S3Client?
    let logger: Logger

    public init(http: FleetHTTP, bucket: S3Client?, logger: Logger) {
        self.http = http
        self.bucket = bucket
        self.logger = logger
    }

    /// The nodes a request names, from what discovery found.
    /// - Throws: `UnknownNodes` naming those not found, and the nodes that were.
    public static func select(_ names: [String]?, from found: [FleetNode]) throws -> [FleetNode] {
        guard let names else { return found }
        let unknown = names.filter { name in !found.contains { $0.name == name || $0.id == name } }
        guard unknown.isEmpty else {
            let known = found.map(\.name).sorted().joined(separator: ", ")
            throw UnknownNodes(description: "unknown node\(unknown.count > 1 ? "s" : ""): \(unknown.joined(separator: ", ")) (known: \(known.isEmpty ? "none" : known))")
        }
        return found.filter { names.contains($0.name) || names.contains($0.id) }
    }

    /// Fetches `nodes` (as discovery found them) and writes the manifest; a partial result
    /// is written and reported too, never thrown away.
    public func fetch(_ request: Request, nodes: [FleetNode], bucketError: String?, progress: FetchProgress) async throws -> FetchReport {
        try FileManager.default.createDirectory(at: request.output, withIntermediateDirectories: true)
        progress.starting(nodes: nodes.count)
        let folders = Self.folderNames(nodes)
        let bucket = bucket
        let http = http
        let logger = logger
        let reports = try await BoundedTasks.map(Array(zip(nodes, folders)), limit: request.parallelNodes) { node, folder in
            let source = node.record.flatMap { record in bucket.map { BucketSource(client: $0, prefix: record.archivePrefix, logger: logger) } }
            let fetch = NodeFetch(
                node: node, folder: request.output.appendingPathComponent(folder), startMs: request.startMs, endMs: request.endMs,
                token: request.tokens.token(for: node), clip: request.clip, http: http, bucket: source, bucketError: bucketError,
                progress: progress)
            let report = await fetch.run()
            progress.finished(report)
            return report
        }
        var problems: [String] = []
        if let bucketError { problems.append("the bucket could not be read: \(bucketError)") }
        for node in reports {
            for gap in node.gaps where gap.reason == .fetchFailed || gap.footageExists {
                problems.append("\(node.name): \(FetchReport.iso(gap.startMs)) to \(FetchReport.iso(gap.endMs)) not fetched (\(gap.reason.rawValue): \(gap.detail))")
            }
        }
        let report = FetchReport(
            startMs: request.startMs, endMs: request.endMs, startISO: FetchReport.iso(request.startMs), endISO: FetchReport.iso(request.endMs),
            finishedAtMs: WallClock.nowMs(), complete: problems.isEmpty,
            bucket: self.bucket.map { FetchReport.BucketState(endpoint: $0.endpoint.absoluteString, bucket: $0.bucket, error: bucketError) },
            nodes: reports, problems: problems)
        let manifest = request.output.appendingPathComponent(Self.manifestName)
        let part = request.output.appendingPathComponent(Self.manifestName + ".part")
        try report.encoded().write(to: part)
        guard rename(part.path, manifest.path) == 0 else {
            throw FleetError(description: "cannot write \(manifest.path): \(String(cString: strerror(errno)))")
        }
        return report
    }

    /// A folder per node, named after it; names two nodes share get the id's first part.
    static func folderNames(_ nodes: [FleetNode]) -> [String] {
        func plain(_ name: String) -> String {
            let cleaned = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
            return cleaned.isEmpty || cleaned.hasPrefix(".") ? "node_" + cleaned : cleaned
        }
        let counts = Dictionary(grouping: nodes, by: { plain($0.name) }).mapValues(\.count)
        return nodes.map { node in
            let base = plain(node.name)
            return counts[base, default: 0] > 1 ? "\(base)-\(node.id.prefix(8))" : base
        }
    }
}

public struct FleetError: Error, CustomStringConvertible {
    public let description: String
}
