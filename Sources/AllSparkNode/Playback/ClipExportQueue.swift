import Foundation
import NIOPosix

/// Makes clips one after another on a thread of their own. Remuxing an hour of footage is
/// seconds of blocking file I/O: on the cooperative pool (two threads on a two-core node)
/// two clip requests stalled every HTTP and WebSocket session for as long (bench/README.md).
public final class ClipExportQueue: Sendable {
    private let thread: NIOThreadPool

    public init() {
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    deinit {
        thread.shutdownGracefully { _ in }
    }

    /// Writes the clip to `path` once the clips asked for before it are done. A request
    /// cancelled while it waits makes no clip.
    public func export(
        chunks: [ChunkRecord], storeDirectory: URL, elsewhere: [String: String] = [:], startMs: Int64, endMs: Int64, to path: String
    ) async throws -> ClipExporter.Summary {
        try await thread.runIfActive {
            try ClipExporter.export(
                chunks: chunks, storeDirectory: storeDirectory, elsewhere: elsewhere, startMs: startMs, endMs: endMs, to: path)
        }
    }
}
