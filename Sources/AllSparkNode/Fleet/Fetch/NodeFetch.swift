import Foundation
import Logging
import Synchronization

/// Fetches one node's part of the range into its folder: the chunks it lists (from the
/// node), those only its archive holds (from the bucket), falling back to the bucket when
/// the node stops answering mid-way, then names every gap.
struct NodeFetch: Sendable {
    let node: FleetNode
    let folder: URL
    let startMs: Int64
    let endMs: Int64
    let token: String?
    let clip: Bool
    let http: FleetHTTP
    /// The node's archive, when it has one and a bucket is configured.
    let bucket: BucketSource?
    /// Why the bucket cannot be read at all, when it cannot.
    let bucketError: String?
    let progress: FetchProgress

    /// One chunk to fetch, and where it can come from.
    private struct Wanted: Sendable {
        var record: ChunkRecord
        var onNode = false
        /// Listed by the node as only in its archive (it streams it from there).
        var nodeArchive = false
        var manifest: ArchiveManifest?
    }

    func run() async -> FetchReport.NodeReport {
        var report = FetchReport.NodeReport(
            id: node.id, name: node.name, folder: folder.lastPathComponent, state: node.online ? "online" : "offline",
            url: node.live?.url, lastSeenMs: node.record?.lastSeenMs, clock: node.clock, clockWarning: node.clockWarning,
            chunks: [], gaps: [], errors: [], bytes: 0)
        if !node.online, let unreachable = node.unreachable { report.errors.append("node: \(unreachable)") }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            report.errors.append("cannot create \(folder.path): \(error)")
            return report
        }
        var wanted: [String: Wanted] = [:]
        let nodeSource = node.live.map { NodeSource(url: $0.url, token: token, http: http) }
        var nodeError: String?
        var nodeListsArchive = false
        switch await Self.attempt({ try await nodeSource?.list(startMs: startMs, endMs: endMs) }) {
        case .success(let listing):
            nodeListsArchive = listing != nil && listing?.archiveError == nil
            for listed in listing?.chunks ?? [] {
                guard case .chunk(let stamp, let format) = ChunkNaming.classify(listed.file) else { continue }
                let record = ChunkRecord(
                    stamp: stamp, format: format, startMs: listed.startMs, endMs: listed.endMs, frameCount: listed.frames,
                    chunkBytes: listed.bytes, timestampsBytes: listed.timestampsBytes)
                wanted[stamp] = Wanted(record: record, onNode: listed.source != "archive", nodeArchive: listed.source == "archive")
            }
        case .failure(let error):
            nodeError = "listing on the node failed: \(error)"
            report.errors.append(nodeError!)
        }
        // A live node's listing already names what only its archive holds (its manifests are
        // read when needed); otherwise the bucket is listed.
        var bucketFailure = node.record == nil ? nil : bucketError
        if let bucket, bucketError == nil, !nodeListsArchive {
            do {
                for manifest in try await bucket.manifests(startMs: startMs, endMs: endMs) {
                    wanted[manifest.stamp, default: Wanted(record: manifest.record)].manifest = manifest
                }
            } catch {
                bucketFailure = "\(error)"
                report.errors.append("bucket: \(error)")
            }
        }
        let answering = NodeAnswering(nodeSource != nil && nodeError == nil)
        if clip, let nodeSource, answering.now {
            do {
                report.clip = try await fetchClip(nodeSource)
            } catch {
                report.errors.append("clip: \(error)")
                answering.stopped()
            }
        }
        let items = wanted.values.sorted { $0.record.startMs < $1.record.startMs }
        let clipMade = report.clip != nil
        let outcomes = (try? await BoundedTasks.map(items, limit: Self.filesAtOnce) { item in
            await fetch(item, from: nodeSource, answering: answering, clipMade: clipMade)
        }) ?? []
        var failed: [(startMs: Int64, endMs: Int64, error: String)] = []
        for outcome in outcomes {
            switch outcome {
            case .fetched(let entry):
                report.chunks.append(entry)
                report.bytes += entry.bytes + entry.timestampsBytes
            case .failed(let record, let reason):
                failed.append((record.startMs, record.endMs, "\(record.fileName): \(reason)"))
            }
        }
        if let stop = answering.stopReason { report.errors.append("the node stopped answering during the fetch: \(stop)") }
        let context = GapFinder.Context(
            online: node.online, record: node.record, ring: node.ring, nodeError: nodeError, bucketError: bucketFailure,
            unreachable: node.unreachable, nowMs: WallClock.nowMs())
        let covered = report.chunks.map { ($0.startMs, $0.endMs) }
        report.gaps = GapFinder(context: context).gaps(startMs: startMs, endMs: endMs, fetched: covered, failed: failed)
        return report
    }

    /// Chunks of one node fetched at once: enough to hide a link's latency, few enough that
    /// a fleet's memory stays flat (each holds a connection and a small buffer).
    static let filesAtOnce = 8

    private enum Outcome: Sendable {
        case fetched(FetchReport.ChunkEntry)
        case failed(ChunkRecord, String)
    }

    private static func attempt<Value: Sendable>(_ body: @Sendable () async throws -> Value) async -> Result<Value, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// One chunk: from the node while it answers, else (or when the node fails) from the bucket.
    private func fetch(_ item: Wanted, from nodeSource: NodeSource?, answering: NodeAnswering, clipMade: Bool) async -> Outcome {
        if clipMade, item.onNode || item.nodeArchive { return .fetched(entry(item.record, source: .node, sha256: nil, fetched: false)) }
        var errors: [String] = []
        if let nodeSource, answering.now, item.onNode || (item.nodeArchive && bucket == nil) {
            do {
                return .fetched(try await fetchFromNode(item, nodeSource))
            } catch {
                errors.append("from the node: \(error)")
                // A node that no longer answers is not asked again: the rest comes from the bucket.
                if (error as? NodeSource.Refused)?.answered != true, !(error is PartFile.Mismatch) { answering.stopped("\(error)") }
            }
        }
        if let bucket {
            do {
                var manifest = item.manifest
                if manifest == nil { manifest = try await bucket.catalog.manifest(forFile: item.record.fileName) }
                if let manifest {
                    return .fetched(try await fetchFromBucket(manifest, bucket))
                }
                errors.append("not in the bucket")
            } catch {
                errors.append("from the bucket: \(error)")
            }
        }
        return .failed(item.record, errors.isEmpty ? "held only by the node, which stopped answering" : errors.joined(separator: "; "))
    }

    /// `fetched`: the chunk file is in the folder, so its signatures are checked.
    private func entry(_ record: ChunkRecord, source: FetchReport.ChunkEntry.Source, sha256: String?, fetched: Bool = true) -> FetchReport.ChunkEntry {
        FetchReport.ChunkEntry(
            file: record.fileName, timestampsFile: record.timestampsFileName, startMs: record.startMs, endMs: record.endMs,
            frames: record.frameCount, bytes: record.chunkBytes, timestampsBytes: record.timestampsBytes, source: source, sha256: sha256,
            signature: fetched ? .of(folder.appendingPathComponent(record.fileName).path, anchorPEM: node.record?.signingAnchorPEM) : nil)
    }

    private func fetchFromNode(_ item: Wanted, _ source: NodeSource) async throws -> FetchReport.ChunkEntry {
        let record = item.record
        // When the archive has the chunk too, its manifest's checksum checks the node's copy.
        let manifest = item.manifest
        for (file, size, sha256) in [
            (record.fileName, record.chunkBytes, manifest?.chunkSHA256),
            (record.timestampsFileName, record.timestampsBytes, manifest?.timestampsSHA256),
        ] {
            try await PartFile(path: folder.appendingPathComponent(file)).fetch(size: size, sha256: sha256, progress: progress) { offset in
                try await source.open(file, size: size, offset: offset)
            }
        }
        return entry(record, source: .node, sha256: manifest?.chunkSHA256)
    }

    private func fetchFromBucket(_ manifest: ArchiveManifest, _ bucket: BucketSource) async throws -> FetchReport.ChunkEntry {
        for (file, size, sha256) in [
            (manifest.chunkFile, manifest.chunkBytes, manifest.chunkSHA256),
            (manifest.timestampsFile, manifest.timestampsBytes, manifest.timestampsSHA256),
        ] {
            try await PartFile(path: folder.appendingPathComponent(file)).fetch(size: size, sha256: sha256, progress: progress) { offset in
                try await bucket.open(file, offset: offset)
            }
        }
        return entry(manifest.record, source: .bucket, sha256: manifest.chunkSHA256)
    }

    /// The node's clip of the range: written as a part file and renamed when it ends well
    /// (a clip is made for each request, so it is not resumed).
    private func fetchClip(_ source: NodeSource) async throws -> FetchReport.FileEntry {
        let name = "clip_\(startMs / 1000)-\(endMs / 1000).mp4"
        let part = PartFile(path: folder.appendingPathComponent(name))
        try? FileManager.default.removeItem(at: part.partPath)
        let response = try await source.openClip(startMs: startMs, endMs: endMs)
        guard let length = response.headers.first(name: "content-length").flatMap({ Int64($0) }) else {
            throw NodeSource.Refused(description: "/api/clip answered without a length", answered: true)
        }
        try await part.fetch(size: length, sha256: nil, progress: progress) { _ in (response.body, false) }
        return FetchReport.FileEntry(
            file: name, bytes: length, signature: .of(folder.appendingPathComponent(name).path, anchorPEM: node.record?.signingAnchorPEM))
    }
}

/// Whether a node still answers during its fetch: the first connection failure ends its
/// part, and the chunks fetched at the same time go to the bucket.
final class NodeAnswering: Sendable {
    private let state: Mutex<(answers: Bool, reason: String?)>

    init(_ answers: Bool) {
        state = Mutex((answers, nil))
    }

    var now: Bool { state.withLock { $0.answers } }
    var stopReason: String? { state.withLock { $0.reason } }

    func stopped(_ reason: String? = nil) {
        state.withLock { state in
            if state.answers, let reason { state.reason = reason }
            state.answers = false
        }
    }
}
