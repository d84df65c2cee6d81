import Foundation
import Synchronization
import Testing
@testable import AllSparkNode

/// Asking for footage inside the chunk being recorded ends that chunk early.
@Suite(.serialized)
struct FreshFootageTests {
    @Test("footage up to now, 3 s into a 10-minute chunk: the chunk is ended early, holds it, and the next starts with a keyframe")
    func endsTheRecordingChunk() async throws {
        let storeURL = try TestFiles.makeDirectory("fresh")
        // A chunk far longer than the ask can come late: on two cores, other suites hold the
        // test threads, and at a load of 15 the 3 s sleep ended minutes late.
        let chunkMs = 600_000
        var config = RecorderHarness.config(source: "testsrc", store: storeURL, chunkMs: chunkMs, pace: true)
        config.encoder.preset = NodeConfig().encoder.preset
        let harness = try RecorderHarness(config: config, storeDirectory: storeURL)
        let asked = Mutex(false)
        let outcome = Task {
            defer { asked.withLock { $0 = true } }
            try await Task.sleep(for: .seconds(3))
            let askedAtMs = WallClock.nowMs()
            // How fast is measured in bench/clock-bench.py; here, that the chunk is cut at the right frame.
            let files = await harness.recorder.publishFootage(throughMs: askedAtMs, timeout: .seconds(60))
            // A second ask for the same time needs no cut.
            let again = await harness.recorder.publishFootage(throughMs: askedAtMs)
            try await Task.sleep(for: .seconds(2))
            return (askedAtMs, files, again)
        }
        try await harness.run(stopWhen: { _ in asked.withLock { $0 } }, timeoutSeconds: 540)
        let (askedAtMs, files, again) = try await outcome.value

        let chunks = harness.store.allChunks
        let cut = try #require(chunks.first, "a chunk was published before its 60 s were up")
        #expect(files == [cut.fileName, cut.timestampsFileName])
        #expect(again.isEmpty)
        // The frames up to the ask are in the cut chunk, the first one after it in the next
        // (by the frames' own times: a loaded box may capture late or drop, not reorder).
        #expect(cut.endMs <= askedAtMs, "the cut chunk holds no frame after the ask")
        // When the ask comes depends on the machine's load; that the chunk was cut short and holds
        // the frames of its span does not (a loaded machine may drop a few).
        let spanFrames = Int((cut.endMs - cut.startMs) * 30 / 1000) + 1
        #expect(cut.endMs - cut.startMs < Int64(chunkMs) - 60_000, "ended well before its 10 minutes")
        // Frames the source dropped (a loaded box) are not in the chunk; the rest are.
        let dropped = harness.recorder.status.framesDropped
        #expect(cut.frameCount <= spanFrames + 1 && (cut.frameCount + dropped) * 4 >= spanFrames * 3,
                "\(cut.frameCount) frames and \(dropped) dropped over a span of \(spanFrames)")
        #expect(harness.recorder.status.chunksCutEarly == 1)
        for chunk in chunks {
            let decoded = try DecodedChunk.decode(storeURL.appendingPathComponent(chunk.fileName).path)
            #expect(decoded.firstPacketIsKeyframe && decoded.decodedFrames == chunk.frameCount)
        }
        let next = try #require(chunks.dropFirst().first, "recording went on into a new chunk")
        #expect(next.startMs > askedAtMs, "the frames up to the ask are all in the cut chunk")
        // No frame lost at the cut: the next chunk starts at the next frame, a frame interval
        // (33 ms) later, unless the source dropped frames on a loaded box (counted above).
        #expect(next.startMs > cut.endMs && (next.startMs - cut.endMs < 100 || dropped > 0),
                "\(next.startMs - cut.endMs) ms between the chunks, \(dropped) frames dropped")
    }

    @Test("footage already published, or a recorder not recording, needs no cut and no wait")
    func noCutWhenNotNeeded() {
        var requests = FreshFootageRequests()
        let plan = ChunkPlan(startMs: 10_000, encoderPts: 0, format: .mp4, durationMs: 30_000, expectedFrames: 900)
        let id = requests.add(throughMs: 12_000)
        #expect(requests.chunkToEnd(beforeFrameAt: 11_900, filling: plan) == nil, "the asked time has not been reached")
        #expect(requests.chunkToEnd(beforeFrameAt: 12_033, filling: plan) == plan.stamp)
        #expect(requests.chunkToEnd(beforeFrameAt: 12_066, filling: plan) == nil, "cut once")
        #expect(requests.take(try! #require(id)) == nil, "waits until the chunk is published")
        let record = ChunkRecord(stamp: plan.stamp, format: .mp4, startMs: 10_000, endMs: 12_000, frameCount: 61, chunkBytes: 1, timestampsBytes: 1)
        requests.published(before: 12_033, record: record)
        #expect(requests.take(id!) == [record.fileName, record.timestampsFileName])
        #expect(requests.add(throughMs: 12_000) == nil, "already published")

        // Asked for a time before the chunk being filled: the earlier chunk is awaited, none is cut.
        let later = ChunkPlan(startMs: 40_000, encoderPts: 30_000, format: .mp4, durationMs: 30_000, expectedFrames: 900)
        let earlier = requests.add(throughMs: 39_990)
        #expect(requests.chunkToEnd(beforeFrameAt: 40_033, filling: later) == nil)
        requests.published(before: 40_000, record: nil)
        #expect(requests.take(earlier!) == [])
    }
}
