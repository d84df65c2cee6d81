import Foundation
import Logging
import Testing
@testable import AllSparkNode

/// Chunks an upload has named stay while anything else can go; the cap still wins.
@Suite("store pins for uploads")
struct StorePinningTests {
    /// Chunk bytes of each test chunk (a pattern, not video: the index reads the timestamps file).
    private static let chunkBytes = 100_000

    @Test("a pinned chunk outlives newer unpinned ones; when only pinned ones are left, the oldest goes and is counted")
    func pinnedChunksGoLast() throws {
        let (directory, store, stamps, oneChunk) = try Self.makeStore(chunks: 4, label: "pins")

        store.pin([stamps[0], stamps[1]])
        store.setCap(bytes: 2 * oneChunk + oneChunk / 2)
        #expect(store.allChunks.map(\.stamp) == [stamps[0], stamps[1]], "the two newer, unpinned chunks go first")
        #expect(store.usage.pinnedChunksEvicted == 0)

        store.setCap(bytes: oneChunk + oneChunk / 2)
        #expect(store.allChunks.map(\.stamp) == [stamps[1]], "the cap wins: the oldest pinned chunk goes")
        #expect(store.usage.chunksEvicted == 3)
        #expect(store.usage.pinnedChunksEvicted == 1)
        let files = Set(TestFiles.fileNames(in: directory))
        #expect(!files.contains("chunk_\(stamps[0]).mp4") && !files.contains("timestamps_\(stamps[0]).txt"))
        #expect(files.contains("chunk_\(stamps[1]).mp4") && files.contains("timestamps_\(stamps[1]).txt"))
    }

    @Test("pins count uploads: a chunk pinned twice stays pinned until both uploads end")
    func pinsAreCounted() throws {
        let (_, store, stamps, oneChunk) = try Self.makeStore(chunks: 3, label: "pin-count")

        store.pin([stamps[0]])
        store.pin([stamps[0]])
        store.unpin([stamps[0]])
        store.setCap(bytes: 2 * oneChunk + oneChunk / 2)
        #expect(store.allChunks.map(\.stamp) == [stamps[0], stamps[2]], "one upload still reads the oldest chunk")

        store.unpin([stamps[0]])
        store.setCap(bytes: oneChunk + oneChunk / 2)
        #expect(store.allChunks.map(\.stamp) == [stamps[2]], "unpinned, the oldest goes first again")
        #expect(store.usage.pinnedChunksEvicted == 0)
    }

    @Test("only footage from before the store opened, or up to the last frame of a chunk that left it, is sent to the archive to look for")
    func rangeNotWhollyHeld() throws {
        let (directory, store, stamps, oneChunk) = try Self.makeStore(chunks: 2, label: "held")
        let recovered = store.allChunks
        let openedMs = WallClock.nowMs()
        // Three chunks recorded since the store opened, 10 s apart.
        let recorded = try (1...3).map { index in
            let startMs = openedMs + Int64(index) * 10_000
            let stamp = try Self.addChunk(to: directory, startMs: startMs)
            return ChunkRecord(
                stamp: stamp, format: .mp4, startMs: startMs, endMs: startMs + 29 * 33, frameCount: 30,
                chunkBytes: Int64(Self.chunkBytes), timestampsBytes: oneChunk - Int64(Self.chunkBytes))
        }
        recorded.forEach(store.commit)

        let before = try #require(store.rangeNotWhollyHeld(startMs: recovered[0].startMs, endMs: recovered[1].endMs + 1))
        #expect(before.startMs == recovered[0].startMs && before.endMs == recovered[1].endMs + 1, "chunks of an earlier run may be archived only")
        #expect(store.rangeNotWhollyHeld(startMs: recorded[0].startMs, endMs: recorded[2].endMs + 1) == nil, "the ring holds all it recorded")
        let straddling = try #require(store.rangeNotWhollyHeld(startMs: openedMs - 5_000, endMs: recorded[0].endMs))
        #expect(straddling.startMs == openedMs - 5_000 && straddling.endMs <= recorded[0].startMs, "only the part before the store opened")

        // An upload keeps the oldest chunks: the first chunk recorded since opening is evicted, leaving a hole after pinned ones.
        store.pin(stamps + [recorded[1].stamp])
        store.setCap(bytes: 4 * oneChunk + oneChunk / 2)
        #expect(store.allChunks.map(\.stamp) == stamps + [recorded[1].stamp, recorded[2].stamp])
        let hole = try #require(store.rangeNotWhollyHeld(startMs: recorded[0].startMs, endMs: recorded[2].endMs + 1))
        #expect(hole.startMs == recorded[0].startMs && hole.endMs == recorded[0].endMs + 1, "up to the last frame of the chunk that left")
        #expect(store.rangeNotWhollyHeld(startMs: recorded[1].startMs, endMs: recorded[2].endMs + 1) == nil)
    }

    /// A store of `chunks` equal chunks 10 s apart, with a cap that holds them all.
    private static func makeStore(chunks: Int, label: String) throws -> (URL, ChunkStore, [String], Int64) {
        let directory = try TestFiles.makeDirectory(label)
        let stamps = try (0..<chunks).map { try addChunk(to: directory, startMs: 1_700_000_000_000 + Int64($0) * 10_000) }
        let store = try ChunkStore(directory: directory.path, capBytes: 1 << 30, logger: Logger(label: "test"))
        let oneChunk = try #require(store.allChunks.first?.totalBytes)
        return (directory, store, stamps, oneChunk)
    }

    /// A chunk file of `chunkBytes` and a timestamps file of 30 frames; returns its stamp.
    private static func addChunk(to directory: URL, startMs: Int64) throws -> String {
        let stamp = ChunkNaming.stamp(forMs: startMs)
        try Data(repeating: 0x5A, count: chunkBytes).write(to: directory.appendingPathComponent("chunk_\(stamp).mp4"))
        let times = (0..<30).map { String(startMs + Int64($0) * 33) }.joined(separator: "\n") + "\n"
        try Data(times.utf8).write(to: directory.appendingPathComponent("timestamps_\(stamp).txt"))
        return stamp
    }
}
