import Foundation
import Logging
@testable import AllSparkNode

/// A store of fake chunks (a byte pattern and a timestamps file of 30 frames, 33 ms apart),
/// for tests of what the store keeps and deletes; the index reads only the timestamps file.
struct TestStore {
    static let chunkBytes = 100_000
    static let firstMs: Int64 = 1_700_000_000_000
    static let spacingMs: Int64 = 10_000

    let directory: URL
    let store: ChunkStore
    /// Bytes of one chunk with its timestamps file.
    let oneChunk: Int64

    /// `chunks` chunks 10 s apart from `firstMs`, under a cap that holds them all.
    init(chunks: Int, label: String, retention: RetentionPolicy = RetentionPolicy()) throws {
        directory = try TestFiles.makeDirectory(label)
        for index in 0..<chunks { _ = try Self.writeChunk(to: directory, startMs: Self.startMs(index)) }
        store = try ChunkStore(directory: directory.path, capBytes: 1 << 30, retention: retention, logger: Logger(label: "test"))
        oneChunk = Int64(Self.chunkBytes) + DurableFile.size(of: directory.appendingPathComponent("timestamps_\(ChunkNaming.stamp(forMs: Self.firstMs)).txt").path)
    }

    static func startMs(_ index: Int) -> Int64 { firstMs + Int64(index) * spacingMs }

    var stamps: [String] { store.allChunks.map(\.stamp) }

    /// Records chunk number `index` (10 s after the one before) and commits it, as the writer would.
    @discardableResult
    func record(_ index: Int) throws -> ChunkRecord {
        let record = try Self.writeChunk(to: directory, startMs: Self.startMs(index))
        store.commit(record)
        return record
    }

    static func writeChunk(to directory: URL, startMs: Int64) throws -> ChunkRecord {
        let stamp = ChunkNaming.stamp(forMs: startMs)
        try Data(repeating: 0x5A, count: chunkBytes).write(to: directory.appendingPathComponent("chunk_\(stamp).mp4"))
        let times = (0..<30).map { String(startMs + Int64($0) * 33) }.joined(separator: "\n") + "\n"
        try Data(times.utf8).write(to: directory.appendingPathComponent("timestamps_\(stamp).txt"))
        return ChunkRecord(
            stamp: stamp, format: .mp4, startMs: startMs, endMs: startMs + 29 * 33, frameCount: 30,
            chunkBytes: Int64(chunkBytes), timestampsBytes: Int64(times.utf8.count))
    }

    /// A hold over chunks `first...last` (by number), placed through the store.
    @discardableResult
    func hold(_ indexes: ClosedRange<Int>, reason: String = "test") throws -> HoldPlacement {
        try store.placeHold(try HoldRequest(startMs: Self.startMs(indexes.lowerBound), endMs: Self.startMs(indexes.upperBound) + 1000, reason: reason))
    }
}
