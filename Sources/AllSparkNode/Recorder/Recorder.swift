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

    /// - Parameter makeMasker: builds the privacy pass on the recording thread for each
    ///   capture size; while it throws, nothing is recorded (privacy fails closed).
    public init(config: NodeConfig, store: ChunkStore, logger: Logger, makeMasker: @escaping LiveMaskingFactory) {
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

    /// Format, chunk length and encoder settings apply from the next chunk; the cap at once.
    public func apply(_ config: NodeConfig) {
        control.update(RecordingSettings(config))
        store.setCap(bytes: config.capBytes)
    }

    /// Calls `observer` on the recording thread after each chunk is published. Keep it short.
    public func onChunkSaved(_ observer: @escaping @Sendable (ChunkRecord) -> Void) {
        control.observeChunks(observer)
    }

    public func stop() { control.requestStop() }

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
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                RecordingLoop(captureSettings: captureSettings, store: store, makeMasker: makeMasker, control: control, logger: logger)
                    .run()
                continuation.resume()
            }
            thread.name = "allspark-recorder"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
