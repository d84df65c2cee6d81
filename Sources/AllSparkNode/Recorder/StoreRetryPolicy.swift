/// When the recorder tries a chunk again after the store refused one (a full disk, a
/// vanished or read-only store). Trying at every frame floods the log and the disk with
/// one-frame attempts, so frames are dropped while waiting and the store is probed instead
/// (stat, access, statvfs: microseconds) every `probeIntervalMs`:
/// - a store that was unavailable and is writable again is tried at once;
/// - a full disk is tried once its room reaches about a chunk and has grown since the last
///   failure, so space coming back is noticed within a probe;
/// - anything else waits out a backoff (10 s doubling to 60 s): failures a probe cannot
///   see (I/O errors, a file system the kernel turned read-only after an error) and a
///   chunk estimate that was too high.
/// Tries are never closer together than `minimumSpacingMs`.
struct StoreRetryPolicy {
    enum Phase: Equatable {
        /// Chunks are being written.
        case recording
        /// Frames are dropped until the store can take a chunk.
        case waiting
        /// A chunk has been started; the first frame it stores ends the wait.
        case trying
    }

    static let probeIntervalMs: Int64 = 250
    static let firstBackoffMs: Int64 = 10_000
    static let maximumBackoffMs: Int64 = 60_000
    static let minimumSpacingMs: Int64 = 2_000
    /// Less room than this is not worth a try: not even a chunk's header fits.
    static let minimumRoomBytes: Int64 = ChunkWriter.headerAllowanceBytes

    private(set) var phase = Phase.recording
    /// Failures since chunks were last written.
    private(set) var failures = 0
    private var lastTryMs: Int64 = .min / 2
    private var backoffEndsMs: Int64 = 0
    private var roomAtFailure: Int64 = 0
    private var unavailableSinceFailure = false

    /// A chunk could not start, or the store became unavailable under one.
    mutating func failed(atMs nowMs: Int64, condition: StoreCondition) {
        phase = .waiting
        backoffEndsMs = nowMs + min(Self.firstBackoffMs << min(failures, 8), Self.maximumBackoffMs)
        failures += 1
        lastTryMs = nowMs
        switch condition {
        case .unavailable:
            unavailableSinceFailure = true
            roomAtFailure = 0
        case .writable(let room, _):
            unavailableSinceFailure = false
            roomAtFailure = room
        }
    }

    /// While waiting: whether to try a chunk now, given the latest probe of the store and
    /// about how many bytes a chunk takes. Moves to `trying` when it says yes.
    mutating func shouldTry(atMs nowMs: Int64, condition: StoreCondition, chunkBytes: Int64) -> Bool {
        guard phase == .waiting else { return false }
        switch condition {
        case .unavailable:
            unavailableSinceFailure = true
            return false
        case .writable(let room, _):
            guard nowMs - lastTryMs >= Self.minimumSpacingMs, room >= Self.minimumRoomBytes else { return false }
            let spaceReturned = room >= chunkBytes && room >= roomAtFailure + chunkBytes / 2
            guard unavailableSinceFailure || spaceReturned || nowMs >= backoffEndsMs else { return false }
            phase = .trying
            lastTryMs = nowMs
            return true
        }
    }

    /// A chunk stored its first frame.
    mutating func succeeded() {
        phase = .recording
        failures = 0
        unavailableSinceFailure = false
    }
}
