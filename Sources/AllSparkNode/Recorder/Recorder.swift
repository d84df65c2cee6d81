import Foundation
import Logging
import ServiceLifecycle

/// Runs the recording loop on a thread of its own (libav calls block) and connects it to
/// the node: a graceful shutdown (SIGTERM/SIGINT) finishes the current chunk cleanly.
public final class Recorder: Service, Sendable {
    public let store: ChunkStore
    private let captureSettings: CaptureSettings
    private let makeMasker: LiveMaskingFactory
    private let control: RecorderControl
    private let logger: Logger
    private let liveTap: (any LivePacketTap)?
    /// Who signs the recorded GOPs; nil when the footage is recorded unsigned.
    public let signing: SigningIdentitySource?

    /// - Parameter makeMasker: builds the privacy pass on the recording thread for each
    ///   capture size; while it throws, nothing is recorded (privacy fails closed).
    ///   `liveVideo` receives every encoded packet for live viewers. `signing`: whose key
    ///   signs the recorded GOPs (nil records unsigned footage).
    public init(
        config: NodeConfig, store: ChunkStore, logger: Logger, liveVideo: LiveVideo? = nil, signing: SigningIdentitySource? = nil,
        makeMasker: @escaping LiveMaskingFactory
    ) {
        liveTap = liveVideo?.tap
        self.signing = signing
        self.store = store
        captureSettings = CaptureSettings(config)
        control = RecorderControl(settings: RecordingSettings(config))
        self.makeMasker = makeMasker
        self.logger = logger
    }

    public var status: RecorderStatus { control.currentStatus }
    /// The latest masked frame, copied about twice a second; nil before the first frame.
    public var latestSnapshot: SnapshotFrame? { control.latestSnapshot }
    public var settings: RecordingSettings { control.currentSettings }
    /// Monotonic ms (`WallClock.monotonicMs`) of the recording loop's last progress: a frame
    /// encoded, or the source waiting out its retry backoff.
    public var lastProgressMonotonicMs: Int64 { control.lastProgressMonotonicMs }

    /// Format, chunk length and encoder settings apply from the next chunk; the cap and retention at once.
    public func apply(_ config: NodeConfig) {
        control.update(RecordingSettings(config))
        store.setRetention(RetentionPolicy(config))
        store.setCap(bytes: config.capBytes)
    }

    /// Calls `observer` on the recording thread after each chunk is published. Keep it short.
    public func onChunkSaved(_ observer: @escaping @Sendable (ChunkRecord) -> Void) {
        control.observeChunks(observer)
    }

    public func stop() { control.requestStop() }

    /// Makes the next frame a key frame (an IDR), at most one a `ForcedKeyframes.requestSpacingMs`.
    public func requestKeyframe() { control.requestKeyframe() }

    /// Makes every frame captured up to `throughMs` (epoch ms) available in published chunks:
    /// when the chunk being recorded holds some of them it is ended at the next frame. Waits
    /// at most `timeout` (frames pass the privacy pass and the encoder first), and not at all
    /// while nothing is being recorded. Returns the files of the chunk ended early, if one was.
    public func publishFootage(throughMs: Int64, timeout: Duration = .seconds(5)) async -> [String] {
        guard status.recording, let id = control.requestFootage(throughMs: throughMs) else { return [] }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, status.recording, !Task.isCancelled {
            if let files = control.footageResult(id) { return files }
            try? await Task.sleep(for: .milliseconds(10))
        }
        if let files = control.footageResult(id) { return files }
        control.cancelFootageRequest(id)
        logger.warning("footage up to \(throughMs) ms was not published within \(timeout); answering with what is stored")
        return []
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await runOnRecordingThread()
            } onCancel: {
                control.requestStop()
            }
        } onGracefulShutdown: {
            self.control.requestStop()
        }
    }

    private func runOnRecordingThread() async {
        let captureSettings = captureSettings
        let store = store
        let control = control
        let logger = logger
        let makeMasker = makeMasker
        let liveTap = liveTap
        let signing = signing
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                RecordingLoop(
                    captureSettings: captureSettings, store: store, makeMasker: makeMasker, control: control, liveTap: liveTap,
                    signing: signing, logger: logger)
                    .run()
                continuation.resume()
            }
            thread.name = "allspark-recorder"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
