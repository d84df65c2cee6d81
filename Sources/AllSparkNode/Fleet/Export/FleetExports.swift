import Foundation
import Logging
import Synchronization
import ZIPFoundation

/// The dashboard's "export this range from all": the same fetch as `fleet fetch`, run by the
/// node into `<store>/.fleet-exports/<id>/` (one folder per node and manifest.json), then
/// zipped for the browser. Only the newest `kept` exports stay on disk.
public final class FleetExports: Sendable {
    static let directoryName = ".fleet-exports"
    static let kept = 3

    public enum State: String, Sendable, Codable { case running, done, failed }

    public struct Job: Sendable, Codable {
        public var id: String
        public var startMs: Int64
        public var endMs: Int64
        public var state: State
        public var bytes: Int64
        public var nodesDone: Int
        public var nodesTotal: Int
        /// Where the folders are on the node's disk.
        public var folder: String
        public var zipBytes: Int64?
        public var report: FetchReport?
        public var error: String?
    }

    private struct Running {
        var job: Job
        let progress: FetchProgress
    }

    let directory: URL
    private let settings: ArchiveSettings
    private let logger: Logger
    private let jobs = Mutex<[String: Running]>([:])
    private let order = Mutex<[String]>([])

    public init(storeDirectory: URL, settings: ArchiveSettings, logger: Logger) {
        directory = storeDirectory.appendingPathComponent(Self.directoryName)
        self.settings = settings
        self.logger = logger
    }

    /// What mDNS and the bucket know of the fleet now.
    public func discover() async throws -> FleetDiscovery.Result {
        try await FleetClients(settings: settings).with { http, bucket in
            await FleetDiscovery(http: http, bucket: bucket, logger: logger).discover()
        }
    }

    /// Starts an export of [startMs, endMs) from `nodes` (names or ids; nil: all).
    /// - Throws: `FleetFetcher.UnknownNodes` before anything starts.
    public func start(startMs: Int64, endMs: Int64, nodes names: [String]?, tokens: FleetTokens) async throws -> Job {
        let id = "\(WallClock.nowMs())-\(UUID().uuidString.prefix(8).lowercased())"
        let folder = directory.appendingPathComponent(id)
        let (found, selected) = try await FleetClients(settings: settings).with { http, bucket in
            let found = await FleetDiscovery(http: http, bucket: bucket, logger: logger).discover()
            return (found, try FleetFetcher.select(names, from: found.nodes))
        }
        let progress = FetchProgress()
        let job = Job(
            id: id, startMs: startMs, endMs: endMs, state: .running, bytes: 0, nodesDone: 0, nodesTotal: selected.count,
            folder: folder.path)
        jobs.withLock { $0[id] = Running(job: job, progress: progress) }
        removeOldExports(keeping: id)
        let request = FleetFetcher.Request(startMs: startMs, endMs: endMs, output: folder, nodes: names, clip: false, tokens: tokens)
        Task {
            do {
                let report = try await FleetClients(settings: settings).with { http, bucket in
                    try await FleetFetcher(http: http, bucket: bucket, logger: logger)
                        .fetch(request, nodes: selected, bucketError: found.bucketError, progress: progress)
                }
                let zip = try Self.zip(folder, to: zipPath(id))
                update(id) { $0.state = .done; $0.report = report; $0.zipBytes = zip }
            } catch {
                logger.warning("fleet export \(id) failed: \(error)")
                update(id) { $0.state = .failed; $0.error = "\(error)" }
            }
        }
        return job
    }

    public func job(_ id: String) -> Job? {
        jobs.withLock { jobs in
            guard var running = jobs[id] else { return nil }
            running.job.bytes = running.progress.bytesWritten
            running.job.nodesDone = running.progress.nodesDone
            return running.job
        }
    }

    public func zipPath(_ id: String) -> URL { directory.appendingPathComponent(id + ".zip") }

    private func update(_ id: String, _ change: (inout Job) -> Void) {
        jobs.withLock { jobs in
            guard var running = jobs[id] else { return }
            change(&running.job)
            jobs[id] = running
        }
    }

    /// The export's folders in one zip, stored without compression (video is compressed
    /// already); returns its size. Written beside the folder as a part file first.
    static func zip(_ folder: URL, to path: URL) throws -> Int64 {
        let part = path.deletingLastPathComponent().appendingPathComponent(path.lastPathComponent + ".part")
        try? FileManager.default.removeItem(at: part)
        try FileManager.default.zipItem(at: folder, to: part, shouldKeepParent: false, compressionMethod: .none)
        guard rename(part.path, path.path) == 0 else { throw FleetError(description: "cannot write \(path.path)") }
        return (try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? Int64) ?? 0
    }

    private func removeOldExports(keeping id: String) {
        let dropped = order.withLock { order -> [String] in
            order.append(id)
            guard order.count > Self.kept else { return [] }
            let dropped = Array(order.prefix(order.count - Self.kept))
            order.removeFirst(dropped.count)
            return dropped
        }
        for old in dropped {
            jobs.withLock { _ = $0.removeValue(forKey: old) }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(old))
            try? FileManager.default.removeItem(at: zipPath(old))
        }
    }

    /// Clients for one task, closed after it.
}
