import Foundation
import Logging
import Synchronization

/// The size-capped ring of finished chunks in one directory.
///
/// The directory is the truth: the index is rebuilt from it at start-up. The cap counts
/// chunks, their timestamps files and the chunk being written. Before the writer lets a
/// file grow, it reserves the most that file could occupy if it were finished at once
/// (see `reserveLiveChunk`), and the store evicts the oldest chunks until that fits, so
/// the bytes on disk never exceed the cap.
public final class ChunkStore: Sendable {
    public let directory: URL
    private let logger: Logger
    private let state: Mutex<State>
    private let lock: StoreLock
    /// Which directory is the store, so nothing is written where an unmounted disk was.
    private let identity: StoreIdentity
    /// Told of every chunk evicted, under the store's lock: they must not call back into the store.
    private let evictionObservers = Mutex<[@Sendable (ChunkRecord) -> Void]>([])
    /// Free space kept on the file system whatever the cap, so a full disk is met by
    /// eviction before a write fails.
    static let freeSpaceFloorBytes: Int64 = 1 << 20

    struct State {
        var chunks: [ChunkRecord] = []
        var capBytes: Int64
        var liveReservedBytes: Int64 = 0
        var liveActualBytes: Int64 = 0
        var peakBytes: Int64 = 0
        var chunksEvicted = 0
        var chunksCommitted = 0
        /// Chunks named in uploads under way (stamp → number of uploads), evicted only when nothing else is left.
        var pins: [String: Int] = [:]
        var pinnedChunksEvicted = 0
        /// Every chunk recorded after this time is still here: the store's opening, raised
        /// to the last frame of each chunk that left (evicted, or lost with its disk).
        var wholeAfterMs: Int64

        var committedBytes: Int64 { chunks.reduce(0) { $0 + $1.totalBytes } }
    }

    public init(directory path: String, capBytes: Int64, logger: Logger) throws {
        directory = URL(fileURLWithPath: path).standardizedFileURL
        self.logger = logger
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        lock = try StoreLock(directory: directory)
        identity = try StoreIdentity(directory: directory)
        let chunks = ChunkIndexBuilder(directory: directory, logger: logger).rebuild()
        state = Mutex(State(chunks: chunks, capBytes: capBytes, wholeAfterMs: WallClock.nowMs()))
        state.withLock { state in
            evict(&state, toFit: 0)
            state.peakBytes = state.committedBytes
        }
        logger.info("store \(directory.path): \(chunks.count) chunks, cap \(capBytes) bytes")
    }

    public var capBytes: Int64 { state.withLock { $0.capBytes } }

    /// Applies a new cap at once, evicting as needed.
    public func setCap(bytes: Int64) {
        state.withLock { state in
            state.capBytes = bytes
            evict(&state, toFit: state.liveReservedBytes)
        }
    }

    /// Lets the chunk being written occupy up to `reservedBytes` (it has `actualBytes` on
    /// disk now). Evicts the oldest chunks until that fits under the cap and on the file
    /// system. Returns false when it cannot fit even with every finished chunk evicted:
    /// the writer must then stop growing that file.
    func reserveLiveChunk(reservedBytes: Int64, actualBytes: Int64) -> Bool {
        state.withLock { state in
            state.liveActualBytes = actualBytes
            state.peakBytes = max(state.peakBytes, state.committedBytes + actualBytes)
            evict(&state, toFit: reservedBytes)
            while let available = DurableFile.availableBytes(at: directory.path),
                reservedBytes - actualBytes > available - Self.freeSpaceFloorBytes
            {
                guard evictOldest(&state, reason: "the file system is nearly full") != nil else { return false }
            }
            guard state.committedBytes + reservedBytes <= state.capBytes else { return false }
            state.liveReservedBytes = reservedBytes
            return true
        }
    }

    /// Nil while chunks can be written here; else why not (vanished, another file system at
    /// the path, read-only). One stat and one access(2): cheap enough to ask twice a second.
    public func availabilityProblem() -> String? {
        if let problem = identity.problem() { return problem }
        guard access(identity.path, W_OK) == 0 else {
            return "store \(identity.path) is not writable: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// What a new chunk could have now; see `StoreCondition`.
    func condition() -> StoreCondition {
        if let problem = availabilityProblem() { return .unavailable(problem) }
        let free = DurableFile.availableBytes(at: identity.path) ?? 0
        let evictable = state.withLock { $0.committedBytes }
        return .writable(roomBytes: max(0, free - Self.freeSpaceFloorBytes) + evictable, freeBytes: free)
    }

    /// After the store was unavailable and is writable again (the same disk back, or its
    /// directory made again): forgets chunks whose files are gone, and finishes the part
    /// files that could not be finished then, as start-up would. Returns the chunks
    /// recovered. Only while no chunk is being written.
    func reconcileAfterOutage() -> [ChunkRecord] {
        guard availabilityProblem() == nil else { return [] }
        identity.restoreMarker()
        let lost = state.withLock { state in
            let gone = state.chunks.filter { access(directory.appendingPathComponent($0.fileName).path, F_OK) != 0 }
            state.chunks.removeAll { record in gone.contains { $0.stamp == record.stamp } }
            state.wholeAfterMs = gone.reduce(state.wholeAfterMs) { max($0, $1.endMs) }
            return gone
        }
        for record in lost { logger.warning("\(record.fileName) is no longer in the store; removed from the index") }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: identity.path)) ?? []
        var recovered: [ChunkRecord] = []
        for name in names {
            guard case .part(let stamp, let format) = ChunkNaming.classify(name),
                let record = ChunkRecovery.recoverPart(stamp: stamp, format: format, in: directory, logger: logger)
            else { continue }
            commit(record)
            recovered.append(record)
        }
        return recovered
    }

    /// Adds a finished chunk; the live reservation ends with it.
    func commit(_ record: ChunkRecord) {
        state.withLock { state in
            state.liveReservedBytes = 0
            state.liveActualBytes = 0
            if let index = state.chunks.lastIndex(where: { $0.stamp == record.stamp }) { state.chunks.remove(at: index) }
            let position = state.chunks.firstIndex { $0.startMs > record.startMs } ?? state.chunks.endIndex
            state.chunks.insert(record, at: position)
            state.chunksCommitted += 1
            state.peakBytes = max(state.peakBytes, state.committedBytes)
            evict(&state, toFit: 0)
        }
    }

    /// The writer gave its file up (an error); its reservation ends.
    func releaseLiveChunk() {
        state.withLock { state in
            state.liveReservedBytes = 0
            state.liveActualBytes = 0
        }
    }

    /// Chunks whose frames overlap [startMs, endMs), oldest first.
    public func chunks(overlappingStartMs startMs: Int64, endMs: Int64) -> [ChunkRecord] {
        state.withLock { $0.chunks.filter { $0.overlaps(startMs: startMs, endMs: endMs) } }
    }

    public var allChunks: [ChunkRecord] { state.withLock { $0.chunks } }

    /// The part of [startMs, endMs) that may be held only elsewhere (the archive), or nil
    /// when the store holds all it recorded there: it keeps every chunk recorded since it
    /// opened but those that left it, so only footage from before it opened or up to the
    /// last frame of a chunk that left can be missing.
    public func rangeNotWhollyHeld(startMs: Int64, endMs: Int64) -> (startMs: Int64, endMs: Int64)? {
        let endMs = min(endMs, state.withLock { $0.wholeAfterMs } + 1)
        return startMs < endMs ? (startMs, endMs) : nil
    }

    public var usage: StoreUsage {
        state.withLock { state in
            StoreUsage(
                usedBytes: state.committedBytes + state.liveActualBytes, capBytes: state.capBytes,
                peakBytes: state.peakBytes, chunkCount: state.chunks.count,
                oldestMs: state.chunks.first?.startMs, newestMs: state.chunks.last?.endMs,
                chunksCommitted: state.chunksCommitted, chunksEvicted: state.chunksEvicted,
                pinnedChunksEvicted: state.pinnedChunksEvicted)
        }
    }

    /// Deletes the chunk with the earliest start time and its timestamps file.
    @discardableResult
    public func evictOldest() -> ChunkRecord? {
        state.withLock { evictOldest(&$0, reason: "asked to") }
    }

    /// Calls `observer` with each chunk evicted from now on (the archive counts those it had not copied yet).
    public func onEvicted(_ observer: @escaping @Sendable (ChunkRecord) -> Void) {
        evictionObservers.withLock { $0.append(observer) }
    }

    /// Keeps these chunks while an upload reads them: eviction takes every other chunk first.
    public func pin(_ stamps: [String]) {
        state.withLock { state in
            for stamp in stamps { state.pins[stamp, default: 0] += 1 }
        }
    }

    public func unpin(_ stamps: [String]) {
        state.withLock { state in
            for stamp in stamps {
                guard let count = state.pins[stamp] else { continue }
                state.pins[stamp] = count > 1 ? count - 1 : nil
            }
        }
    }

    /// Whether a chunk is still in the store (an upload checks before sending it).
    public func contains(stamp: String) -> Bool {
        state.withLock { $0.chunks.contains { $0.stamp == stamp } }
    }

    private func evict(_ state: inout State, toFit liveBytes: Int64) {
        while state.committedBytes + liveBytes > state.capBytes, evictOldest(&state, reason: "over the cap") != nil {}
    }

    /// Evicts the oldest chunk no upload is reading; if every chunk is being uploaded, the
    /// cap wins and the oldest pinned chunk goes (its upload reports it).
    private func evictOldest(_ state: inout State, reason: String) -> ChunkRecord? {
        // A vanished store keeps its index: its chunks are listed, and served when it returns.
        guard !state.chunks.isEmpty, identity.problem() == nil else { return nil }
        let index = state.chunks.firstIndex { state.pins[$0.stamp] == nil } ?? 0
        let oldest = state.chunks.remove(at: index)
        state.wholeAfterMs = max(state.wholeAfterMs, oldest.endMs)
        unlink(directory.appendingPathComponent(oldest.fileName).path)
        unlink(directory.appendingPathComponent(oldest.timestampsFileName).path)
        state.chunksEvicted += 1
        for observer in evictionObservers.withLock({ $0 }) { observer(oldest) }
        if state.pins[oldest.stamp] != nil {
            state.pinnedChunksEvicted += 1
            logger.warning("evicted \(oldest.fileName) while an upload needed it (\(reason))")
        } else {
            logger.debug("evicted \(oldest.fileName) (\(reason))")
        }
        return oldest
    }
}

/// A snapshot of the store's size and contents.
public struct StoreUsage: Sendable, Equatable {
    public let usedBytes: Int64
    public let capBytes: Int64
    /// The most bytes the store has held at once since it opened (as sampled at each write).
    public let peakBytes: Int64
    public let chunkCount: Int
    public let oldestMs: Int64?
    public let newestMs: Int64?
    public let chunksCommitted: Int
    public let chunksEvicted: Int
    /// Of those, chunks an upload still needed: the cap left nothing else to evict.
    public let pinnedChunksEvicted: Int
}
