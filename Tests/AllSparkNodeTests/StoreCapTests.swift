import Foundation
import Synchronization
import Testing
@testable import AllSparkNode

/// The cap under fast churn: real chunks, a tiny cap, and the directory watched from outside.
@Suite(.serialized)
struct StoreCapTests {
    @Test("a tiny cap with fast churn is never exceeded; the oldest go first, with their sidecars")
    func tinyCapNeverExceeded() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 4)
        let storeURL = try TestFiles.makeDirectory("cap")
        var config = RecorderHarness.config(source: input.path, store: storeURL, chunkMs: 1000, loop: true)
        config.videoBufferMaxMB = 0.5
        let harness = try RecorderHarness(config: config, storeDirectory: storeURL)

        // Sample the directory from another thread while the recorder churns through the cap.
        let observedPeak = Atomic<Int64>(0)
        let sampling = Atomic<Bool>(true)
        let sampler = Thread {
            while sampling.load(ordering: .relaxed) {
                let bytes = TestFiles.storeBytes(in: storeURL)
                if bytes > observedPeak.load(ordering: .relaxed) { observedPeak.store(bytes, ordering: .relaxed) }
                usleep(2000)
            }
        }
        sampler.start()
        try await harness.run(stopWhen: { $0.savedChunks.count >= 40 })
        sampling.store(false, ordering: .relaxed)

        let cap = config.capBytes
        let usage = harness.store.usage
        #expect(usage.chunksEvicted >= 20, "the cap must force eviction many times")
        #expect(usage.peakBytes <= cap, "peak \(usage.peakBytes) over cap \(cap)")
        #expect(observedPeak.load(ordering: .relaxed) <= cap, "directory held \(observedPeak.load(ordering: .relaxed)) bytes")
        #expect(observedPeak.load(ordering: .relaxed) > cap / 2, "the sampler saw the store fill up")

        // What is left is exactly the newest chunks published, each with its sidecar, and nothing else.
        let kept = harness.store.allChunks
        let published = harness.savedChunks
        #expect(kept == Array(published.suffix(kept.count)))
        let expectedFiles = Set(kept.flatMap { [$0.fileName, $0.timestampsFileName] })
        let actualFiles = Set(TestFiles.fileNames(in: storeURL).filter { !$0.hasPrefix(".allspark") })
        #expect(actualFiles == expectedFiles)
    }

    @Test("evictOldest removes by recorded start time, not by file age")
    func evictionFollowsStartTime() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 6)
        let storeURL = try TestFiles.makeDirectory("order")
        let config = RecorderHarness.config(source: input.path, store: storeURL)
        do {
            let harness = try RecorderHarness(config: config, storeDirectory: storeURL)
            try await harness.run()
        }
        // Make the newest chunk's files the oldest on disk: order must not change.
        let before = try ChunkCatalog.read(directory: storeURL.path)
        let newest = try #require(before.last)
        for name in [newest.fileName, newest.timestampsFileName] {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_000_000), .creationDate: Date(timeIntervalSince1970: 1_000_000)],
                ofItemAtPath: storeURL.appendingPathComponent(name).path)
        }
        let store = try ChunkStore(directory: storeURL.path, capBytes: 1 << 30, logger: .init(label: "test"))
        #expect(store.allChunks == before)
        let evicted = store.evictOldest()
        #expect(evicted == before.first)
        #expect(!FileManager.default.fileExists(atPath: storeURL.appendingPathComponent(before[0].timestampsFileName).path))
        #expect(store.allChunks == Array(before.dropFirst()))
    }
}
