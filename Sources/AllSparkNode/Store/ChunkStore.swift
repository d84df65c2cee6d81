import Foundation
import Logging
import Synchronization

/// The size-capped ring of finished chunks in one directory.
///
/// The directory is the truth: the index is rebuilt from it at start-up. The cap counts
/// chunks, their timestamps files and the chunk being written. Before the writer lets a
/// file grow, it reserves the most that file could occupy if it were finished at once
/// (see `reserveLiveChunk`), and the store evicts the oldest chunks until that fits, so
/// the bytes on disk never exceed the cap. Held chunks (`Hold`, the holds file in the
/// directory) stay whatever the cap or the age limit; they count toward the cap, and the
/// holds may take only `RetentionPolicy.heldShare` of it, so recording always has room.
public final class ChunkStore: Sendable {
    public let directory: URL
    private let logger: Logger
    private let state: Mutex<State>
    private let lock: StoreLock
    /// Which directory is the store, so nothing is written where an unmounted disk was.
    private let identity: StoreIdentity
    public let holdLedger: HoldLedger
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
        var retention: RetentionPolicy
        /// The holds as last read from the holds file, and which version of it that was.
        var holds: [Hold]
        var holdsVersion: HoldsFile.FileVersion?
        var evicted: [EvictionCause: EvictionTally] = [:]
        /// Every chunk recorded after this time is still here: the store's opening, raised
        /// to the last frame of each chunk that left (evicted, or lost with its disk).
        var wholeAfterMs: Int64

        var committedBytes: Int64 { chunks.reduce(0) { $0 + $1.totalBytes } }
    }

    /// Throws `HoldError.unreadableFile` when the holds file is damaged: running on without
    /// its holds could evict held footage.
    public init(directory path: String, capBytes: Int64, retention: RetentionPolicy = RetentionPolicy(), logger: Logger) throws {
        directory = URL(fileURLWithPath: path).standardizedFileURL
        self.logger = logger
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        lock = try StoreLock(directory: directory)
        identity = try StoreIdentity(directory: directory)
        holdLedger = HoldLedger(directory: directory)
        // The lock file is made now: on a disk that fills up later, eviction must not need a new file.
        try HoldsLock.withLock(directory: directory, exclusive: false) {}
        let holdsVersion = holdLedger.file.version()
        let holds = try holdLedger.file.read()
        let chunks = ChunkIndexBuilder(directory: directory, logger: logger).rebuild()
        state = Mutex(State(
            chunks: chunks, capBytes: capBytes, retention: retention, holds: holds, holdsVersion: holdsVersion, wholeAfterMs: WallClock.nowMs()))
        state.withLock { state in
            evict(&state, toFit: 0)
            state.peakBytes = state.committedBytes
        }
        logger.info("store \(directory.path): \(chunks.count) chunks, cap \(capBytes) bytes, \(holds.count) holds")
    }

    public var capBytes: Int64 { state.withLock { $0.capBytes } }

    /// Applies a new cap at once, evicting as needed.
    public func setCap(bytes: Int64) {
        state.withLock { state in
            state.capBytes = bytes
            evict(&state, toFit: state.liveReservedBytes)
        }
    }

    public var retention: RetentionPolicy { state.withLock { $0.retention } }

    /// Applies a new age limit and held share; the age limit is enforced at the next `evictExpired`.
    public func setRetention(_ retention: RetentionPolicy) {
        state.withLock { $0.retention = retention }
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
            let holds = state.holds.active(atMs: WallClock.nowMs())
            let held = state.chunks.filter { chunk in holds.contains { $0.covers(chunk) } }
            return StoreUsage(
                usedBytes: state.committedBytes + state.liveActualBytes, capBytes: state.capBytes,
                peakBytes: state.peakBytes, chunkCount: state.chunks.count,
                oldestMs: state.chunks.first?.startMs, newestMs: state.chunks.last?.endMs,
                chunksCommitted: state.chunksCommitted, chunksEvicted: state.chunksEvicted,
                pinnedChunksEvicted: state.pinnedChunksEvicted,
                evictedByCap: state.evicted[.cap] ?? EvictionTally(), evictedByAge: state.evicted[.age] ?? EvictionTally(),
                heldChunks: held.count, heldBytes: held.reduce(0) { $0 + $1.totalBytes })
        }
    }

    /// Deletes the oldest chunk that is not held, and its timestamps file.
    @discardableResult
    public func evictOldest() -> ChunkRecord? {
        state.withLock { evictOldest(&$0, reason: "asked to") }
    }

    /// Deletes the chunks whose last frame is older than the age limit at `nowMs`, oldest
    /// first and at most `atMost` of them (the recorder waits for the store's lock meanwhile:
    /// a limit set on weeks of footage is worked off in turns), but held ones and those an
    /// upload is reading (they go at the next call after it). Nothing without an age limit.
    /// Returns the chunks deleted.
    @discardableResult
    public func evictExpired(nowMs: Int64 = WallClock.nowMs(), atMost: Int = 256) -> [ChunkRecord] {
        state.withLock { state in
            guard state.retention.maxAgeMs > 0, identity.problem() == nil else { return [] }
            let cutoffMs = nowMs - state.retention.maxAgeMs
            guard state.chunks.contains(where: { $0.endMs < cutoffMs }) else { return [] }
            return withCurrentHolds(&state, nowMs: nowMs) { state, policy in
                let expired = Array(policy.expired(in: state.chunks, cutoffMs: cutoffMs).prefix(atMost))
                for chunk in expired {
                    remove(&state, at: state.chunks.firstIndex(of: chunk)!, cause: .age, reason: "older than the age limit")
                }
                return expired
            } ?? []
        }
    }

    /// When the age limit deletes the next chunk, and which: the oldest chunk neither held nor
    /// being uploaded. Nil without an age limit or such a chunk.
    public func nextAgeEviction(nowMs: Int64 = WallClock.nowMs()) -> (chunk: ChunkRecord, atMs: Int64)? {
        state.withLock { state in
            guard state.retention.maxAgeMs > 0 else { return nil }
            let policy = EvictionPolicy(heldStamps: heldStamps(state, nowMs: nowMs), pins: state.pins)
            return policy.expired(in: state.chunks, cutoffMs: .max).first.map { ($0, $0.endMs + state.retention.maxAgeMs) }
        }
    }

    /// The holds in force, as the holds file has them now.
    public func holds(nowMs: Int64 = WallClock.nowMs()) -> [Hold] {
        state.withLock { state in
            refreshHolds(&state)
            return state.holds.active(atMs: nowMs)
        }
    }

    /// Places a hold (see `HoldLedger.add`); throws `HoldError` for a refusal.
    public func placeHold(_ request: HoldRequest) throws -> HoldPlacement {
        try state.withLock { state in
            // Refused from memory, before the holds file is read and written under the lock
            // (the ledger checks again, against the file, for holds placed by the command line).
            refreshHolds(&state)
            if request.id == nil, state.holds.active(atMs: WallClock.nowMs()).count >= HoldCountLimit.maximum {
                throw HoldError.tooMany(limit: HoldCountLimit.maximum)
            }
            let placement = try holdLedger.add(
                request, chunks: { state.chunks },
                budget: { HoldShareBudget(capBytes: state.capBytes, share: state.retention.heldShare, recentChunks: $0) })
            refreshHolds(&state)
            logger.notice("hold \(placement.hold.id) placed on \(placement.hold.startMs)...\(placement.hold.endMs) ms (\(placement.hold.reason)): \(placement.chunks.count) chunks, \(placement.demand.recordedBytes) bytes held now")
            return placement
        }
    }

    /// Releases a hold: its chunks are the ring's again, and go at once if the cap needs them.
    public func releaseHold(id: String) throws -> Hold {
        try state.withLock { state in
            let released = try holdLedger.release(id: id)
            refreshHolds(&state)
            logger.notice("hold \(released.id) released (\(released.reason))")
            evict(&state, toFit: state.liveReservedBytes)
            return released
        }
    }

    /// Why the cap and share in `config` cannot hold the holds in force, or nil when they can.
    public func retentionProblem(capBytes: Int64, heldShare: Double) -> String? {
        state.withLock { state in
            refreshHolds(&state)
            let holds = state.holds.active(atMs: WallClock.nowMs())
            guard !holds.isEmpty else { return nil }
            let budget = HoldShareBudget(capBytes: capBytes, share: heldShare, recentChunks: state.chunks)
            let demand = budget.demand(of: holds, chunks: state.chunks, nowMs: WallClock.nowMs())
            guard demand.totalBytes > budget.limitBytes else { return nil }
            return "the holds take \(HoldShareShortfall.mib(demand.totalBytes)) and may take at most \(HoldShareShortfall.mib(budget.limitBytes)) of that cap (videoBufferMaxHeldShare \(heldShare)): release a hold first"
        }
    }

    /// Ids of the holds that keep each chunk (absent: not held).
    public func holdIDs(of chunks: [ChunkRecord], nowMs: Int64 = WallClock.nowMs()) -> [String: [String]] {
        let holds = holds(nowMs: nowMs)
        var ids: [String: [String]] = [:]
        for chunk in chunks {
            let covering = holds.ids(covering: chunk)
            if !covering.isEmpty { ids[chunk.stamp] = covering }
        }
        return ids
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

    /// Evicts the oldest chunk that is neither held nor read by an upload; if only chunks
    /// being uploaded are left besides held ones, the cap wins and the oldest of those goes
    /// (its upload reports it). Nil when only held chunks are left.
    private func evictOldest(_ state: inout State, reason: String) -> ChunkRecord? {
        // A vanished store keeps its index: its chunks are listed, and served when it returns.
        guard !state.chunks.isEmpty, identity.problem() == nil else { return nil }
        return withCurrentHolds(&state, nowMs: WallClock.nowMs()) { state, policy in
            guard let index = policy.nextForRoom(in: state.chunks) else {
                logger.warning("only held chunks are left to evict (\(reason)); holds take \(state.committedBytes) of \(state.capBytes) bytes")
                return nil
            }
            return remove(&state, at: index, cause: .cap, reason: reason)
        } ?? nil
    }

    /// Runs `body` with the holds as the file has them, under the holds lock (shared), so
    /// that no hold is added between reading the holds and deleting a chunk. Nil when the
    /// lock cannot be taken: then nothing is deleted.
    private func withCurrentHolds<T>(_ state: inout State, nowMs: Int64, _ body: (inout State, EvictionPolicy) -> T) -> T? {
        do {
            return try HoldsLock.withLock(directory: directory, exclusive: false) {
                refreshHolds(&state)
                return body(&state, EvictionPolicy(heldStamps: heldStamps(state, nowMs: nowMs), pins: state.pins))
            }
        } catch {
            logger.error("no chunk deleted: \(error)")
            return nil
        }
    }

    private func heldStamps(_ state: State, nowMs: Int64) -> Set<String> {
        let holds = state.holds.active(atMs: nowMs)
        guard !holds.isEmpty else { return [] }
        return Set(state.chunks.filter { chunk in holds.contains { $0.covers(chunk) } }.map(\.stamp))
    }

    /// Reads the holds file again when it changed (`allspark-node hold` writes it too). A
    /// file that no longer parses keeps the holds last read: forgetting them would free held
    /// footage; the node stops on it at the next start.
    private func refreshHolds(_ state: inout State) {
        let version = holdLedger.file.version()
        guard version != state.holdsVersion else { return }
        do {
            state.holds = try holdLedger.file.read()
            state.holdsVersion = version
        } catch {
            logger.error("\(error); keeping the \(state.holds.count) holds read before")
        }
    }

    @discardableResult
    private func remove(_ state: inout State, at index: Int, cause: EvictionCause, reason: String) -> ChunkRecord {
        let chunk = state.chunks.remove(at: index)
        state.wholeAfterMs = max(state.wholeAfterMs, chunk.endMs)
        unlink(directory.appendingPathComponent(chunk.fileName).path)
        unlink(directory.appendingPathComponent(chunk.timestampsFileName).path)
        state.chunksEvicted += 1
        state.evicted[cause, default: EvictionTally()].add(chunk)
        for observer in evictionObservers.withLock({ $0 }) { observer(chunk) }
        if state.pins[chunk.stamp] != nil {
            state.pinnedChunksEvicted += 1
            logger.warning("evicted \(chunk.fileName) while an upload needed it (\(reason))")
        } else if cause == .age {
            logger.info("deleted \(chunk.fileName), \(chunk.totalBytes) bytes: \(reason)")
        } else {
            logger.debug("evicted \(chunk.fileName) (\(reason))")
        }
        return chunk
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
    /// Deleted to stay under the cap (or above a nearly full disk's floor), and for age.
    public let evictedByCap: EvictionTally
    public let evictedByAge: EvictionTally
    /// Chunks a hold keeps, and their bytes (chunks and timestamps files).
    public let heldChunks: Int
    public let heldBytes: Int64
}
