import Foundation
import Testing
@testable import AllSparkNode

struct ChunkRangeTests {
    @Test("stamps are the first frame's epoch seconds and zero-padded milliseconds")
    func stamps() {
        #expect(ChunkNaming.stamp(forMs: 1_700_000_012_345) == "1700000012.345")
        #expect(ChunkNaming.stamp(forMs: 1_700_000_012_005) == "1700000012.005")
        #expect(ChunkNaming.stamp(forMs: 1_700_000_012_050) == "1700000012.050")
        #expect(ChunkNaming.stamp(forMs: 1_700_000_012_000) == "1700000012.000")
        #expect(ChunkNaming.startMs(ofStamp: "1700000012.005") == 1_700_000_012_005)
        #expect(ChunkNaming.startMs(ofStamp: "1700000012.5") == nil)
        #expect(ChunkNaming.classify("chunk_1700000012.345.mov") == .chunk(stamp: "1700000012.345", format: .mov))
        #expect(ChunkNaming.classify("chunk_1700000012345.mp4") == .other, "the iOS app's ms names are not ours")
        #expect(ChunkNaming.classify("../chunk_1.000.mp4") == .other)
    }

    @Test("overlap uses each chunk's real first and last frame, with [start, end) semantics, at the edges")
    func overlapEdges() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 6)
        let storeURL = try TestFiles.makeDirectory("range")
        let harness = try RecorderHarness(config: RecorderHarness.config(source: input.path, store: storeURL), storeDirectory: storeURL)
        try await harness.run()
        let store = harness.store
        let chunks = store.allChunks
        #expect(chunks.count == 3)
        let (first, second, third) = (chunks[0], chunks[1], chunks[2])

        #expect(store.chunks(overlappingStartMs: first.startMs - 5000, endMs: first.startMs) == [], "end is exclusive")
        #expect(store.chunks(overlappingStartMs: first.startMs - 5000, endMs: first.startMs + 1) == [first])
        #expect(store.chunks(overlappingStartMs: first.endMs, endMs: first.endMs + 1) == [first], "the last frame counts")
        #expect(store.chunks(overlappingStartMs: first.endMs + 1, endMs: second.startMs) == [], "the gap between frames")
        #expect(store.chunks(overlappingStartMs: first.endMs, endMs: second.startMs + 1) == [first, second])
        #expect(store.chunks(overlappingStartMs: second.startMs, endMs: second.endMs + 1) == [second], "exactly one chunk's span")
        #expect(store.chunks(overlappingStartMs: 0, endMs: .max) == chunks)
        #expect(store.chunks(overlappingStartMs: third.endMs + 1, endMs: .max) == [])
        #expect(store.chunks(overlappingStartMs: second.startMs, endMs: second.startMs) == [], "an empty range")
    }
}
