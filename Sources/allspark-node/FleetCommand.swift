import AllSparkNode
import ArgumentParser
import Foundation
import Logging

struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet", abstract: "Every node mDNS or the archive bucket knows: list them, fetch one time range from all, hold one on all.",
        subcommands: [FleetListCommand.self, FleetFetchCommand.self, FleetHoldCommand.self])
}

/// Where the fleet is found: the config's archive bucket (or these flags) and mDNS.
struct FleetOptions: ParsableArguments {
    @OptionGroup var configOptions: ConfigOptions
    @Option(name: .customLong("archive-endpoint"), help: "The S3-compatible store the nodes archive to (archive.endpoint); credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.")
    var archiveEndpoint: String?
    @Option(name: .customLong("archive-bucket"), help: "The bucket (archive.bucket).")
    var archiveBucket: String?
    @Flag(name: .customLong("no-mdns"), help: "Do not look for nodes on the LAN with mDNS (the bucket only).")
    var noMDNS = false

    /// The bucket's client, nil when no archive is configured.
    func bucket() throws -> S3Client? {
        var flags: [(key: String, value: ConfigValue)] = []
        if let archiveEndpoint { flags.append(("archive.endpoint", .text(archiveEndpoint))) }
        if let archiveBucket { flags.append(("archive.bucket", .text(archiveBucket))) }
        let config = try configOptions.load(flags: flags)
        guard config.archive.isEnabled else { return nil }
        do {
            return try config.archive.makeClient()
        } catch {
            throw ValidationError("\(error)")
        }
    }

    static var logger: Logger {
        var logger = Logger(label: "allspark-node.fleet")
        logger.logLevel = .error
        return logger
    }

    /// Runs `body` with the clients and a discovery of the fleet, and closes every connection after.
    func withFleet<Value>(_ body: (FleetHTTP, S3Client?, FleetDiscovery) async throws -> Value) async throws -> Value {
        let bucket = try bucket()
        let http = FleetHTTP()
        let result: Result<Value, any Error>
        do {
            let discovery = FleetDiscovery(http: http, bucket: bucket, useMDNS: !noMDNS, logger: Self.logger)
            result = .success(try await body(http, bucket, discovery))
        } catch {
            result = .failure(error)
        }
        await http.shutdown()
        await bucket?.shutdown()
        return try result.get()
    }
}

struct FleetListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Every node mDNS or the bucket knows, merged by node id: online or last seen, ranges, clock.")

    @OptionGroup var fleet: FleetOptions
    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        try await fleet.withFleet { _, _, discovery in
            let found = await discovery.discover()
            if json { return try ArchiveCommand.printJSON(found) }
            if let error = found.bucketError { print("bucket: \(error)") }
            if let error = found.mdnsError { print(error) }
            if found.nodes.isEmpty { print("no nodes found") }
            for node in found.nodes {
                let state = node.live.map { "online at \($0.url) (\($0.status))" }
                    ?? "offline, last seen \(ArchiveCommand.iso(node.record?.lastSeenMs))"
                print("\(node.name)  \(node.id)  \(state)  [\(node.foundBy.map(\.rawValue).joined(separator: "+"))]")
                print("  ring \(Self.extent(node.ring))  archive \(Self.extent(node.record?.archive))  clock \(Self.clock(node))")
            }
        }
    }

    static func extent(_ extent: NodeRecord.Extent?) -> String {
        guard let extent else { return "-" }
        return "\(ArchiveCommand.iso(extent.firstMs)) to \(ArchiveCommand.iso(extent.lastMs))"
    }

    static func clock(_ node: FleetNode) -> String {
        guard let clock = node.clock else { return "unknown" }
        return clock.synchronized ? "synchronised (max error \(clock.maximumErrorMs) ms)" : "NOT synchronised"
    }
}

struct FleetFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "One time range from every node into DIR/<node>/ and DIR/manifest.json, gaps named with their reasons. Exits 1 unless everything that exists was fetched.")

    @OptionGroup var fleet: FleetOptions
    @Option(help: "Range start: epoch seconds or ISO 8601.")
    var from: String
    @Option(help: "Range end (exclusive): epoch seconds or ISO 8601.")
    var to: String
    @Option(help: "Output folder.")
    var out: String
    @OptionGroup var targets: FleetTargetOptions
    @Flag(help: "One clip of the range per live node (/api/clip) instead of its chunks.")
    var clip = false
    @Option(help: "Nodes fetched at once.")
    var parallel = 8

    func validate() throws {
        guard parallel >= 1 else { throw ValidationError("--parallel must be at least 1") }
    }

    func run() async throws {
        let startMs = try ChunksCommand.parseTime(from, option: "--from")
        let endMs = try ChunksCommand.parseTime(to, option: "--to")
        guard startMs < endMs else { throw ValidationError("--from must be before --to (the range is backwards or empty)") }
        let fleetTokens = try targets.fleetTokens()
        let names = targets.names
        let request = FleetFetcher.Request(
            startMs: startMs, endMs: endMs, output: URL(fileURLWithPath: out), nodes: names, clip: clip, tokens: fleetTokens, parallelNodes: parallel)
        let report = try await fleet.withFleet { http, bucket, discovery in
            let fetcher = FleetFetcher(http: http, bucket: bucket, logger: FleetOptions.logger)
            let view = FetchProgressView()
            let progress = FetchProgress { node in view.nodeDone(node) }
            let report: FetchReport
            let found: FleetDiscovery.Result
            if let names {
                // Named nodes are checked before anything is fetched.
                found = await discovery.discover()
                let selected: [FleetNode]
                do {
                    selected = try FleetFetcher.select(names, from: found.nodes)
                } catch {
                    throw ValidationError("\(error)")
                }
                report = try await view.drawing(progress) {
                    try await fetcher.fetch(request, nodes: selected, bucketError: found.bucketError, progress: progress)
                }
            } else {
                (report, found) = try await view.drawing(progress) { try await fetcher.fetch(request, discovery: discovery, progress: progress) }
            }
            if let error = found.mdnsError { FetchProgressView.note(error) }
            if report.nodes.isEmpty {
                FetchProgressView.note("no nodes found: none on mDNS\(bucket == nil ? ", and no bucket configured (--archive-endpoint, --archive-bucket)" : " or in the bucket's registry")")
            }
            return report
        }
        let chunks = report.nodes.reduce(0) { $0 + $1.chunks.count }
        let gaps = report.nodes.reduce(0) { $0 + $1.gaps.count }
        print("\(report.nodes.count) nodes, \(chunks) chunks, \(gaps) gaps; \(out)/\(FleetFetcher.manifestName)")
        for node in report.nodes {
            if let warning = node.clockWarning { print("warning: \(node.name): \(warning)") }
            for gap in node.gaps {
                print("gap  \(node.name)  \(ArchiveCommand.iso(gap.startMs)) to \(ArchiveCommand.iso(gap.endMs))  \(gap.reason.rawValue): \(gap.detail)")
            }
        }
        guard report.complete else {
            for problem in report.problems { print("not fetched: \(problem)") }
            throw ExitCode(1)
        }
    }
}
