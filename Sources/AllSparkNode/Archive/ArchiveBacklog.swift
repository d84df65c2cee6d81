import Synchronization

/// The chunks waiting to be archived, oldest first, and the running account of the rest:
/// archived, found already in the bucket, evicted from the ring before their turn, and
/// the failures on the way. The uploader takes from it; the recorder and the store add
/// and remove; status pages read snapshots.
final class ArchiveBacklog: Sendable {
    struct Item: Sendable, Equatable {
        let record: ChunkRecord
        /// Chunks found in the store at start-up may already be in the bucket (the journal
        /// line lost, or an upload cut off after its last object landed): HEAD them first.
        let checkBucketFirst: Bool
    }

    private struct State {
        var pending: [Item] = []
        /// Set at shutdown: the uploader finishes the chunk it has and takes no other.
        var closed = false
        var phase: ArchiveStatus.Phase = .starting
        var lastError: String?
        var lastErrorAtMs: Int64?
        var configurationProblem = false
        var chunksArchived = 0
        var chunksFoundArchived = 0
        var bytesArchived: Int64 = 0
        var uploadFailures = 0
        var evictedBeforeArchive = 0
        var lastEvictedBeforeArchive: String?
        /// The frame times of the chunks lost that way, for the fleet registry (NodeRecord).
        var evictedBeforeArchiveRanges = EvictedRanges()
        /// (monotonic ms, bytes) of each upload in the last minute, for the rate.
        var recent: [(atMs: Int64, bytes: Int64)] = []
        var lastChunkBytesPerSecond: Double?
    }

    private let state = Mutex(State())
    let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    static let rateWindowMs: Int64 = 60_000

    init() {
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func add(_ record: ChunkRecord, checkBucketFirst: Bool = false) {
        state.withLock { state in
            guard !state.pending.contains(where: { $0.record.stamp == record.stamp }) else { return }
            let position = state.pending.firstIndex { $0.record.startMs > record.startMs } ?? state.pending.endIndex
            state.pending.insert(Item(record: record, checkBucketFirst: checkBucketFirst), at: position)
        }
        signal.yield()
    }

    /// The next chunk to archive; nil when none waits or the backlog is closed.
    var first: Item? { state.withLock { $0.closed ? nil : $0.pending.first } }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether nothing waits to be archived.
    var isEmpty: Bool { state.withLock { $0.pending.isEmpty } }
    /// The last attempt failed and none has succeeded since.
    var isRetrying: Bool { state.withLock { $0.phase == .retrying } }

    /// No chunk is handed out from now on (those waiting stay counted).
    func close() {
        state.withLock { $0.closed = true }
        signal.yield()
    }

    /// The store evicted a chunk: if it was still waiting, it is lost to the archive.
    /// - Returns: whether it was waiting.
    @discardableResult
    func evicted(_ record: ChunkRecord) -> Bool {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.record.stamp == record.stamp }) else { return false }
            state.pending.remove(at: index)
            state.evictedBeforeArchive += 1
            state.lastEvictedBeforeArchive = record.fileName
            state.evictedBeforeArchiveRanges.add(startMs: record.startMs, endMs: record.endMs)
            return true
        }
    }

    /// The frame times of the chunks evicted before they were archived, during this run.
    var evictedBeforeArchiveRanges: [NodeRecord.Extent] { state.withLock { $0.evictedBeforeArchiveRanges.ranges } }

    /// An attempt starts; after a failure the state stays `retrying` until one succeeds, so
    /// health does not flicker while the store is away.
    func uploading() {
        state.withLock { state in
            if state.phase != .retrying { state.phase = .uploading }
        }
    }

    /// A chunk is in the bucket: `sentBytes` were uploaded for it (0 when it was all there).
    func archived(_ record: ChunkRecord, sentBytes: Int64, seconds: Double, nowMonotonicMs: Int64) {
        state.withLock { state in
            state.pending.removeAll { $0.record.stamp == record.stamp }
            if sentBytes > 0 {
                state.chunksArchived += 1
                state.bytesArchived += sentBytes
                state.recent.append((nowMonotonicMs, sentBytes))
                if seconds > 0 { state.lastChunkBytesPerSecond = Double(sentBytes) / seconds }
            } else {
                state.chunksFoundArchived += 1
            }
            state.recent.removeAll { nowMonotonicMs - $0.atMs > Self.rateWindowMs }
            state.phase = state.pending.isEmpty ? .idle : .uploading
            state.lastError = nil
            state.configurationProblem = false
        }
    }

    func failed(_ error: any Error, nowMs: Int64) {
        state.withLock { state in
            state.uploadFailures += 1
            state.phase = .retrying
            state.lastError = "\(error)"
            state.lastErrorAtMs = nowMs
            state.configurationProblem = (error as? S3Error)?.isConfigurationProblem ?? false
        }
    }

    func snapshot(nowMs: Int64, nowMonotonicMs: Int64) -> ArchiveStatus {
        state.withLock { state in
            let oldest = state.pending.first?.record
            let recentBytes = state.recent.filter { nowMonotonicMs - $0.atMs <= Self.rateWindowMs }.reduce(0) { $0 + $1.bytes }
            return ArchiveStatus(
                phase: state.phase, lastError: state.lastError, lastErrorAtMs: state.lastErrorAtMs,
                configurationProblem: state.configurationProblem,
                chunksArchived: state.chunksArchived, chunksFoundArchived: state.chunksFoundArchived, bytesArchived: state.bytesArchived,
                uploadFailures: state.uploadFailures, evictedBeforeArchive: state.evictedBeforeArchive,
                lastEvictedBeforeArchive: state.lastEvictedBeforeArchive,
                backlogChunks: state.pending.count, backlogBytes: state.pending.reduce(0) { $0 + $1.record.totalBytes },
                oldestUnarchivedMs: oldest?.startMs, lagMs: oldest.map { max(0, nowMs - $0.startMs) } ?? 0,
                uploadBytesPerSecond: Double(recentBytes) * 1000 / Double(Self.rateWindowMs),
                lastChunkBytesPerSecond: state.lastChunkBytesPerSecond)
        }
    }
}
