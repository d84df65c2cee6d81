import Foundation
import Logging
import ServiceLifecycle

/// Runs the recording loop on a thread of its own (libav calls block) and connects it to
/// the node: a graceful shutdown (SIGTERM/SIGINT) finishes the current chunk cleanly.
public final class Recorder: Service, Sendable {
    public let store: ChunkStore
    private let captureSettings: CaptureSettings
    private let makeMasker: @Sendable () throws -> FrameMasking
    private let control: RecorderControl
    private let logger: Logger

    /// - Parameter makeMasker: builds the privacy pass on the recording thread; if it throws,
    ///   the recorder does not start (privacy fails closed).
    public init(
        config: NodeConfig, store: ChunkStore, logger: Logger,
        makeMasker: @escaping @Sendable () throws -> FrameMasking
    ) {
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
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await runOnRecordingThread()
            } onCancel: {
                control.requestStop()
            }
        } onGracefulShutdown: {
            self.control.requestStop()
        }
    }

    private func runOnRecordingThread() async throws {
        let captureSettings = captureSettings
        let store = store
        let control = control
        let logger = logger
        let makeMasker = makeMasker
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let thread = Thread {
                let masker: FrameMasking
                do {
                    masker = try makeMasker()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                RecordingLoop(captureSettings: captureSettings, store: store, masker: masker, control: control, logger: logger).run()
                continuation.resume()
            }
            thread.name = "allspark-recorder"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
