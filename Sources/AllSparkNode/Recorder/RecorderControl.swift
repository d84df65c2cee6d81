import Synchronization

/// The state shared between the capture thread and the rest of the node: settings in,
/// status out, the stop request and a key frame asked for.
final class RecorderControl: Sendable {
    private let stopRequested = Atomic<Bool>(false)
    private let keyframeRequested = Atomic<Bool>(false)
    /// Monotonic ms of the recording loop's last sign of life: a frame encoded, or a tick of
    /// its wait before retrying a failed source. The systemd watchdog is fed from it.
    private let progressMonotonicMs = Atomic<Int64>(WallClock.monotonicMs())
    private let settings: Mutex<RecordingSettings>
    private let status = Mutex(RecorderStatus())
    private let chunkObservers = Mutex<[@Sendable (ChunkRecord) -> Void]>([])
    private let snapshot = Mutex(SnapshotFrame())
    private let freshFootage = Mutex(FreshFootageRequests())
    /// The recording thread copies a masked frame this often for snapshots and the dashboard.
    static let snapshotIntervalMs: Int64 = 500

    init(settings: RecordingSettings) {
        self.settings = Mutex(settings)
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    var lastProgressMonotonicMs: Int64 { progressMonotonicMs.load(ordering: .relaxed) }
    /// Recording thread: one atomic store, cheap enough for every frame.
    func markProgress() { progressMonotonicMs.store(WallClock.monotonicMs(), ordering: .relaxed) }
    func requestStop() { stopRequested.store(true, ordering: .releasing) }

    /// A client joining needs a key frame (ONVIF's SetSynchronizationPoint).
    func requestKeyframe() { keyframeRequested.store(true, ordering: .relaxed) }
    /// Recording thread: one atomic load a frame.
    var isKeyframeRequested: Bool { keyframeRequested.load(ordering: .relaxed) }
    func keyframeRequestTaken() { keyframeRequested.store(false, ordering: .relaxed) }

    var currentSettings: RecordingSettings { settings.withLock { $0 } }
    func update(_ newSettings: RecordingSettings) { settings.withLock { $0 = newSettings } }

    var currentStatus: RecorderStatus { status.withLock { $0 } }
    func updateStatus(_ change: (inout RecorderStatus) -> Void) { status.withLock { change(&$0) } }

    var latestSnapshot: SnapshotFrame? {
        snapshot.withLock { $0.sequence > 0 ? $0 : nil }
    }

    func storeSnapshot(of frame: YUV420Frame, captureTimeMs: Int64) {
        snapshot.withLock { $0.copy(from: frame, captureTimeMs: captureTimeMs) }
    }

    /// Asks for every frame captured up to `throughMs` in published chunks; nil when they already are.
    func requestFootage(throughMs: Int64) -> Int? { freshFootage.withLock { $0.add(throughMs: throughMs) } }
    func footageResult(_ id: Int) -> [String]? { freshFootage.withLock { $0.take(id) } }
    func cancelFootageRequest(_ id: Int) { freshFootage.withLock { $0.cancel(id) } }

    /// Recording thread: whether the frame at `captureTimeMs` must start a new chunk for a request.
    func chunkToEndEarly(beforeFrameAt captureTimeMs: Int64, filling: ChunkPlan?) -> String? {
        freshFootage.withLock { $0.chunkToEnd(beforeFrameAt: captureTimeMs, filling: filling) }
    }

    /// Recording thread: every frame before `beforeMs` is in published chunks, `record` the latest.
    func footagePublished(before beforeMs: Int64, record: ChunkRecord?) {
        freshFootage.withLock { $0.published(before: beforeMs, record: record) }
    }

    func observeChunks(_ observer: @escaping @Sendable (ChunkRecord) -> Void) {
        chunkObservers.withLock { $0.append(observer) }
    }

    func announce(_ record: ChunkRecord) {
        status.withLock {
            $0.chunksWritten += 1
            $0.lastChunk = record
        }
        for observer in chunkObservers.withLock({ $0 }) { observer(record) }
    }
}
