import AllSparkNode
import Foundation
import Synchronization

/// Shows a fleet fetch's progress on stderr: a bar redrawn in place on a terminal (bytes,
/// nodes done), one plain line per finished node otherwise (logs, pipes).
final class FetchProgressView: Sendable {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let lock = Mutex(())

    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    func nodeDone(_ node: FetchReport.NodeReport) {
        let line = "\(node.name): \(node.state), \(node.chunks.count) chunks (\(node.chunks.filter { $0.source == .bucket }.count) from the bucket), \(node.gaps.count) gaps, \(node.bytes) bytes"
        lock.withLock { _ in
            if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            Self.note(line)
        }
    }

    /// Runs `body` with the bar redrawn while it runs, and drawn once more at the end.
    func drawing<Value>(_ progress: FetchProgress, _ body: () async throws -> Value) async throws -> Value {
        let drawing = Task { await draw(progress) }
        defer { drawing.cancel() }
        let value = try await body()
        drawing.cancel()
        _ = await drawing.value
        finish(progress)
        return value
    }

    private func draw(_ progress: FetchProgress) async {
        guard isTerminal else { return }
        while !Task.isCancelled {
            lock.withLock { _ in FileHandle.standardError.write(Data(("\r\u{1B}[K" + bar(progress)).utf8)) }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    private func finish(_ progress: FetchProgress) {
        guard isTerminal else { return }
        lock.withLock { _ in FileHandle.standardError.write(Data(("\r\u{1B}[K" + bar(progress) + "\n").utf8)) }
    }

    private func bar(_ progress: FetchProgress) -> String {
        let total = max(progress.nodesTotal, 1)
        let width = 30
        let filled = width * progress.nodesDone / total
        let megabytes = Double(progress.bytesWritten) / 1_048_576
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(format: "%.1f MiB, %d/%d nodes", megabytes, progress.nodesDone, progress.nodesTotal)
    }
}
