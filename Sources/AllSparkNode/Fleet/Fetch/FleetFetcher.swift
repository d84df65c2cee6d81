import Foundation
import Logging
import Synchronization

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
        let (arrivals, feed) = AsyncStream.makeStream(of: Arrival.self)
        var folders = FolderNames(known: nodes)
        Self.hand(nodes, bucketError: bucketError, folders: &folders, progress: progress, to: feed)
        feed.finish()
        let reports = try await fetchNodes(request, arrivals: arrivals, progress: progress)
        return try writeReport(request, reports: reports, bucketError: bucketError)
    }

    /// Finds the fleet and fetches it at once: the nodes that answer at the addresses the
    /// bucket's registry gives, and those it says have stopped, are fetched while mDNS is
    /// still being heard; the rest once it has been. Writes the manifest; returns it with
    /// what discovery found.
    public func fetch(_ request: Request, discovery: FleetDiscovery, progress: FetchProgress) async throws -> (FetchReport, FleetDiscovery.Result) {
        let (arrivals, feed) = AsyncStream.makeStream(of: Arrival.self)
        async let found = Self.feed(feed, from: discovery, progress: progress)
        let reports = try await fetchNodes(request, arrivals: arrivals, progress: progress)
        let discovered = await found
        return (try writeReport(request, reports: reports, bucketError: discovered.bucketError), discovered)
    }

    /// A node handed to the fetch, its folder, and what is known then of the bucket.
    struct Arrival: Sendable {
        let node: FleetNode
        let folder: String
        let bucketError: String?
    }

    private static func feed(
        _ feed: AsyncStream<Arrival>.Continuation, from discovery: FleetDiscovery, progress: FetchProgress
    ) async -> FleetDiscovery.Result {
        let handed = Mutex((ids: Set<String>(), folders: FolderNames(known: [])))
        let found = await discovery.discover { recorded in
            // These came from the registry, so the bucket could be read. A node whose record
            // says it stopped, and that does not answer, withdrew its mDNS announcement when it
            // stopped: mDNS has nothing to add, so it need not wait either.
            let settled = recorded.filter { $0.online || $0.record?.state == .stopped }
            handed.withLock { handed in
                handed.folders = FolderNames(known: recorded)
                handed.ids.formUnion(settled.map(\.id))
                hand(settled, bucketError: nil, folders: &handed.folders, progress: progress, to: feed)
            }
        }
        handed.withLock { handed in
            let rest = found.nodes.filter { !handed.ids.contains($0.id) }
            handed.folders.learn(rest)
            hand(rest, bucketError: found.bucketError, folders: &handed.folders, progress: progress, to: feed)
        }
        feed.finish()
        return found
    }

    /// Hands `nodes` to the fetch, offline ones first, each with its folder.
    private static func hand(
        _ nodes: [FleetNode], bucketError: String?, folders: inout FolderNames, progress: FetchProgress,
        to feed: AsyncStream<Arrival>.Continuation
    ) {
        progress.adding(nodes: nodes.count)
        for node in bucketBoundFirst(nodes) { feed.yield(Arrival(node: node, folder: folders.claim(for: node), bucketError: bucketError)) }
    }

    private func fetchNodes(_ request: Request, arrivals: AsyncStream<Arrival>, progress: FetchProgress) async throws -> [FetchReport.NodeReport] {
        try FileManager.default.createDirectory(at: request.output, withIntermediateDirectories: true)
        let bucket = bucket
        let http = http
        let logger = logger
        let started = try await BoundedTasks.map(arrivals, limit: request.parallelNodes) { arrival in
            let node = arrival.node
            let source = node.record.flatMap { record in bucket.map { BucketSource(client: $0, prefix: record.archivePrefix, logger: logger) } }
            let fetch = NodeFetch(
                node: node, folder: request.output.appendingPathComponent(arrival.folder), startMs: request.startMs, endMs: request.endMs,
                token: request.tokens.token(for: node), clip: request.clip, http: http, bucket: source, bucketError: arrival.bucketError,
                progress: progress)
            let report = await fetch.run()
            progress.finished(report)
            return report
        }
        // The manifest lists the nodes by name, whatever order they were found and ran in.
        return started.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    }

    private func writeReport(_ request: Request, reports: [FetchReport.NodeReport], bucketError: String?) throws -> FetchReport {
        var problems: [String] = []
        if let bucketError { problems.append("the bucket could not be read: \(bucketError)") }
        for node in reports {
            for gap in node.gaps where gap.reason == .fetchFailed || gap.footageExists {
                problems.append("\(node.name): \(WallClock.iso8601(ms: gap.startMs)) to \(WallClock.iso8601(ms: gap.endMs)) not fetched (\(gap.reason.rawValue): \(gap.detail))")
            }
        }
        let report = FetchReport(
            startMs: request.startMs, endMs: request.endMs, startISO: WallClock.iso8601(ms: request.startMs), endISO: WallClock.iso8601(ms: request.endMs),
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

    /// Offline nodes first: their chunks come from the bucket, a manifest and two objects
    /// each, which takes longest; started last, they ran alone after every live node was done.
    static func bucketBoundFirst(_ nodes: [FleetNode]) -> [FleetNode] {
        nodes.filter { !$0.online } + nodes.filter(\.online)
    }
}

/// A folder per node, named after it. A name that two nodes known together share gets the
/// id's first part on both; one already taken when its node turns up gets it too. The nodes
/// known together are the bucket's registry, before anything is fetched, so a re-run names
/// the same folders and resumes into them.
struct FolderNames {
    private var known: Set<String> = []
    private var sharing: [String: Int] = [:]
    private var taken: Set<String> = []

    init(known nodes: [FleetNode]) {
        learn(nodes)
    }

    mutating func learn(_ nodes: [FleetNode]) {
        for node in nodes where known.insert(node.id).inserted { sharing[Self.plain(node.name), default: 0] += 1 }
    }

    mutating func claim(for node: FleetNode) -> String {
        let plain = Self.plain(node.name)
        let name = sharing[plain, default: 0] > 1 || taken.contains(plain) ? "\(plain)-\(node.id.prefix(8))" : plain
        taken.insert(name)
        return name
    }

    private static func plain(_ name: String) -> String {
        let cleaned = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "node_" + cleaned : cleaned
    }
}

public struct FleetError: Error, CustomStringConvertible {
    public let description: String
}
