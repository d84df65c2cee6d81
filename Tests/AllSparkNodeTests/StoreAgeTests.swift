import Foundation
import Testing
@testable import AllSparkNode

/// The age limit (`videoBufferMaxAgeHours`), on a clock the test moves.
@Suite("store age limit")
struct StoreAgeTests {
    @Test("chunks whose last frame is past the limit go; younger, held and uploading ones stay, and are counted")
    func expiredChunksGo() throws {
        let test = try TestStore(chunks: 5, label: "age", retention: RetentionPolicy(maxAgeMs: 60_000))
        let stamps = test.stamps
        try test.hold(0...0)
        test.store.pin([stamps[2]])
        // Chunks 0...2 ended more than a minute before this; 3 and 4 did not.
        let nowMs = test.store.allChunks[3].endMs + 59_000
        let deleted = test.store.evictExpired(nowMs: nowMs)
        #expect(deleted.map(\.stamp) == [stamps[1]])
        #expect(test.stamps == [stamps[0], stamps[2], stamps[3], stamps[4]])
        #expect(test.store.usage.evictedByAge.chunks == 1 && test.store.usage.evictedByAge.bytes == test.oneChunk)
        #expect(test.store.usage.evictedByCap.chunks == 0)

        test.store.unpin([stamps[2]])
        #expect(test.store.nextAgeEviction(nowMs: nowMs)?.chunk.stamp == stamps[2], "the held chunk is never next")
        #expect(test.store.evictExpired(nowMs: nowMs).map(\.stamp) == [stamps[2]], "after its upload the chunk goes at the next pass")
        #expect(!TestFiles.fileNames(in: test.directory).contains("chunk_\(stamps[2]).mp4"))
        #expect(test.store.nextAgeEviction(nowMs: nowMs).map { $0.atMs } == test.store.allChunks[1].endMs + 60_000)
    }

    @Test("without an age limit nothing goes for age, however old; with one, the oldest go first, a batch at a time")
    func noLimitKeepsEverything() throws {
        let test = try TestStore(chunks: 3, label: "age-off")
        #expect(test.store.evictExpired(nowMs: .max / 2).isEmpty)
        #expect(test.store.nextAgeEviction() == nil)
        test.store.setRetention(RetentionPolicy(maxAgeMs: 1000, heldShare: 0.5))
        let oldestTwo = Array(test.stamps.prefix(2))
        #expect(test.store.evictExpired(nowMs: TestStore.startMs(10), atMost: 2).map(\.stamp) == oldestTwo, "oldest first, a batch at a time")
        #expect(test.store.evictExpired(nowMs: TestStore.startMs(10)).count == 1)
    }
}
