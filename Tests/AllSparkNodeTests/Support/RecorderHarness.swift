import Foundation
import Logging
import Synchronization
@testable import AllSparkNode

/// Runs a real recorder (real libav capture, encoder and muxer) in-process against a store directory.
final class RecorderHarness: Sendable {
    let store: ChunkStore
    let recorder: Recorder
    let storeDirectory: URL
    private let saved = Mutex<[ChunkRecord]>([])

    /// - Parameter makeMasker: the privacy pass the recorder builds on its thread.
    /// - Parameter signing: who signs the footage; nil records it unsigned.
    init(
        config: NodeConfig, storeDirectory: URL, signing: SigningIdentitySource? = nil,
        makeMasker: @escaping LiveMaskingFactory = { _, _ in UnmaskedPassThrough() }
    ) throws {
        self.storeDirectory = storeDirectory
        LibavLogging.configure(verbose: false)
        var logger = Logger(label: "test-recorder")
        logger.logLevel = .warning
        store = try ChunkStore(directory: storeDirectory.path, capBytes: config.capBytes, logger: logger)
        recorder = Recorder(config: config, store: store, logger: logger, signing: signing, makeMasker: makeMasker)
        recorder.onChunkSaved { [weak self] record in self?.saved.withLock { $0.append(record) } }
    }

    /// Chunks in the order the recorder published them.
    var savedChunks: [ChunkRecord] { saved.withLock { $0 } }

    /// Records until the source ends, or until `stopWhen` holds (checked every 20 ms).
    func run(stopWhen: @escaping @Sendable (RecorderHarness) -> Bool = { _ in false }, timeoutSeconds: Double = 120) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.recorder.run() }
            group.addTask {
                let deadline = Date().addingTimeInterval(timeoutSeconds)
                while !self.recorder.status.finished {
                    if stopWhen(self) || Date() > deadline {
                        self.recorder.stop()
                        return
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            try await group.waitForAll()
        }
    }

    static func config(source: String, store: URL, chunkMs: Int = 2000, loop: Bool = false, pace: Bool = false) -> NodeConfig {
        var config = NodeConfig()
        config.source = source
        config.width = 320
        config.height = 240
        config.fps = 30
        config.loop = loop
        config.pace = pace
        config.storeDirectory = store.path
        config.videoChunkDurationMs = chunkMs
        config.privacy = "none"
        config.encoder.preset = "ultrafast"
        return config
    }
}
