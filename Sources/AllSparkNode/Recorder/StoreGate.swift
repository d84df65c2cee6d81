import Logging

/// The recording loop's view of whether the store can take chunks. While chunks are
/// written it checks twice a second that the store is still there and writable (a disk
/// unmounted under a chunk leaves its mount point, where writes would land on the system
/// disk). When the store refuses a chunk it decides, with `StoreRetryPolicy`, which frames
/// are dropped and when a chunk is tried again, and keeps the status and log saying why:
/// red health with the reason, one log line per failure, not per frame.
final class StoreGate {
    enum Decision: Equatable {
        /// Encode the frame as usual.
        case record
        /// Encode it as the first frame of a new chunk: a try after waiting.
        case retry
        /// Drop it: the store cannot take it.
        case drop
        /// The store vanished or turned read-only under the chunk being written: give that
        /// chunk up where it is, call `failed`, and drop the frame.
        case lost(String)
    }

    static let checkIntervalMs: Int64 = 500
    private let store: ChunkStore
    private let control: RecorderControl
    private let logger: Logger
    private var policy = StoreRetryPolicy()
    private var estimate: ChunkSizeEstimate
    private var nextCheckMs: Int64 = 0
    private var waitingSinceMs: Int64 = 0
    private var framesDroppedInWait = 0
    /// What a chunk is judged by: its frames and their size, as of the latest frame.
    private var chunkFrames = 0
    private var frameWidth = 0
    private var frameHeight = 0
    /// Whether the current wait is for space (true) or for the store itself (false).
    private var waitingForSpace: Bool?
    /// The store was unavailable during this wait: its index is checked against the directory before a try.
    private var storeWasUnavailable = false

    init(store: ChunkStore, control: RecorderControl, logger: Logger) {
        self.store = store
        self.control = control
        self.logger = logger
        estimate = ChunkSizeEstimate(seed: store.allChunks.suffix(ChunkSizeEstimate.remembered))
    }

    var isWaiting: Bool { policy.phase == .waiting }

    /// Called before each masked frame is encoded.
    func decide(atMs nowMs: Int64, chunkFrames: Int, width: Int, height: Int) -> Decision {
        self.chunkFrames = chunkFrames
        frameWidth = width
        frameHeight = height
        switch policy.phase {
        case .trying:
            return .record
        case .recording:
            guard nowMs >= nextCheckMs else { return .record }
            nextCheckMs = nowMs + Self.checkIntervalMs
            return store.availabilityProblem().map { .lost($0) } ?? .record
        case .waiting:
            guard nowMs >= nextCheckMs else { return dropped() }
            nextCheckMs = nowMs + StoreRetryPolicy.probeIntervalMs
            let condition = store.condition()
            let chunkBytes = estimatedChunkBytes
            if let reason = Self.reason(condition, chunkBytes: chunkBytes) {
                noteWaiting(reason: reason, forSpace: Self.isShortOfSpace(condition, chunkBytes: chunkBytes))
            }
            guard policy.shouldTry(atMs: nowMs, condition: condition, chunkBytes: chunkBytes) else { return dropped() }
            for record in storeWasUnavailable ? store.reconcileAfterOutage() : [] {
                logger.notice("recovered \(record.fileName) (\(record.frameCount) frames), left unfinished when the store went away")
                control.announce(record)
            }
            logger.info("trying a chunk again (\(condition.summary))")
            return .retry
        }
    }

    /// A chunk could not start (`startingChunk`; `error` nil: the store had no room for its
    /// first frame), could not go on, or the store was lost under it. Frames are dropped
    /// from now on until a try.
    func failed(atMs nowMs: Int64, error: Error?, startingChunk: Bool) {
        let condition = store.condition()
        let chunkBytes = estimatedChunkBytes
        let reason = Self.reason(condition, chunkBytes: chunkBytes)
            ?? error.map { "cannot write to the store: \($0)" }
            ?? "the store's cap (\(store.capBytes) bytes) has no room for a chunk's first frame"
        let wasWaiting = policy.phase != .recording
        policy.failed(atMs: nowMs, condition: condition)
        if !wasWaiting {
            waitingSinceMs = nowMs
            framesDroppedInWait = 0
            waitingForSpace = nil
        }
        if startingChunk { control.updateStatus { $0.chunkStartFailures += 1 } }
        noteWaiting(reason: reason, forSpace: Self.isShortOfSpace(condition, chunkBytes: chunkBytes))
        if wasWaiting {
            logger.warning("try \(policy.failures - 1) failed: \(reason); frames are still dropped")
        } else {
            logger.error("\(reason); frames are dropped until the store can take a chunk again (checked every \(StoreRetryPolicy.probeIntervalMs) ms)")
        }
    }

    /// A chunk stored its first frame: the wait, if any, is over.
    func chunkStarted(atMs nowMs: Int64) {
        guard policy.phase != .recording else { return }
        policy.succeeded()
        waitingForSpace = nil
        storeWasUnavailable = false
        nextCheckMs = nowMs + Self.checkIntervalMs
        logger.notice("the store takes chunks again: recording resumed after \(nowMs - waitingSinceMs) ms, \(framesDroppedInWait) frames dropped")
        control.updateStatus {
            $0.storeError = nil
            $0.storeWaiting = false
        }
    }

    func chunkPublished(_ record: ChunkRecord) { estimate.add(record) }

    private var estimatedChunkBytes: Int64 { estimate.bytes(frames: chunkFrames, width: frameWidth, height: frameHeight) }

    private func dropped() -> Decision {
        framesDroppedInWait += 1
        control.updateStatus {
            $0.framesDropped += 1
            $0.framesDroppedForStore += 1
        }
        control.markProgress()
        return .drop
    }

    /// Says why frames are dropped; counts a wait when it starts or changes between a full
    /// disk and an unavailable store.
    private func noteWaiting(reason: String, forSpace: Bool) {
        let starts = waitingForSpace != forSpace
        waitingForSpace = forSpace
        if !forSpace { storeWasUnavailable = true }
        control.updateStatus {
            $0.storeError = reason
            $0.storeWaiting = true
            $0.recording = false
            if starts {
                if forSpace { $0.storeFullEvents += 1 } else { $0.storeUnavailableEvents += 1 }
            }
        }
    }

    private static func isShortOfSpace(_ condition: StoreCondition, chunkBytes: Int64) -> Bool {
        if case .writable(let room, _) = condition { return room < chunkBytes }
        return false
    }

    /// Why the store cannot take a chunk, as far as a probe can tell; nil when it looks fine.
    private static func reason(_ condition: StoreCondition, chunkBytes: Int64) -> String? {
        switch condition {
        case .unavailable(let problem):
            return problem
        case .writable(let room, let free):
            return room < chunkBytes ? "disk full: \(free) bytes free, a chunk needs about \(chunkBytes)" : nil
        }
    }
}

extension StoreCondition {
    var summary: String {
        switch self {
        case .unavailable(let problem): problem
        case .writable(let room, let free): "\(free) bytes free, room for \(room)"
        }
    }
}
