import Foundation
import Testing
import Synchronization
@testable import AllSparkNode

/// Records real video through the whole pipeline and checks every chunk with libav.
@Suite(.serialized)
struct RecorderChunkTests {
    @Test("chunks of a 7 s file: playable, keyframe first, exact frame counts, names and tiling")
    func chunksTileTheRecording() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 7)
        let storeURL = try TestFiles.makeDirectory("chunks")
        var config = RecorderHarness.config(source: input.path, store: storeURL)
        // The default preset uses B-frames, so packets leave the encoder out of order.
        config.encoder.preset = NodeConfig().encoder.preset
        let harness = try RecorderHarness(config: config, storeDirectory: storeURL)
        try await harness.run()

        let chunks = harness.store.allChunks
        #expect(chunks.map(\.frameCount) == [60, 60, 60, 30], "2 s chunks of a 210-frame, 30 fps file")
        #expect(harness.savedChunks == chunks)
        for chunk in chunks {
            let chunkPath = storeURL.appendingPathComponent(chunk.fileName).path
            let decoded = try DecodedChunk.decode(chunkPath)
            #expect(decoded.firstPacketIsKeyframe, "\(chunk.fileName) must start with a keyframe")
            #expect(decoded.codec == "h264" && decoded.pixelFormat == "yuv420p")
            #expect(decoded.width == 320 && decoded.height == 240)
            #expect(decoded.packets == chunk.frameCount && decoded.decodedFrames == chunk.frameCount)
            let lines = try String(contentsOf: storeURL.appendingPathComponent(chunk.timestampsFileName), encoding: .utf8)
                .split(separator: "\n").map { Int64($0)! }
            #expect(lines.count == chunk.frameCount)
            #expect(lines == lines.sorted() && Set(lines).count == lines.count)
            #expect(chunk.fileName == "chunk_\(lines[0] / 1000).\(String(format: "%03d", lines[0] % 1000)).mp4")
            // The container's timeline matches the timestamps file to the millisecond.
            let containerMs = decoded.presentationTimes.map { Int64(($0 - decoded.presentationTimes[0]) * 1000 + 0.5) }
            #expect(containerMs == lines.map { $0 - lines[0] })
            let durationMs = Double(lines.last! - lines.first!) + 1000.0 / 30
            #expect(abs(durationMs - Double(chunk.frameCount) * 1000 / 30) <= 1000.0 / 30 + 1)
            try FinishedChunkCheck.expectFinished(chunkPath, frameTimesMs: lines, fps: 30)
        }
        for (previous, next) in zip(chunks, chunks.dropFirst()) {
            let gap = next.startMs - previous.endMs
            #expect(gap >= 33 && gap <= 34, "consecutive chunks are one frame apart, got \(gap) ms")
            #expect(next.startMs - previous.startMs == 2000, "cut at frame precision on a 2000 ms grid")
        }
        #expect(!TestFiles.fileNames(in: storeURL).contains { $0.hasSuffix(".part") || $0.hasSuffix(".tmp") })
        try expectTimesKnownFromTheFileAlone(chunks[1], in: storeURL)
    }

    /// Issue 31: `probe` reads a chunk's times from its SEI, and a chunk copied without its
    /// timestamps file (under a name that says another time) is indexed with its true times.
    private func expectTimesKnownFromTheFileAlone(_ chunk: ChunkRecord, in storeURL: URL) throws {
        let chunkPath = storeURL.appendingPathComponent(chunk.fileName).path
        let probe = try TestFiles.run(TestFiles.nodeExecutable.path, ["probe", "--json", chunkPath])
        #expect(probe.status == 0, "\(probe.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(probe.output.utf8)) as? [String: Any])
        #expect(report["frames"] as? Int == chunk.frameCount && report["framesWithTime"] as? Int == chunk.frameCount)
        #expect((report["firstFrameMs"] as? NSNumber)?.int64Value == chunk.startMs)
        #expect((report["lastFrameMs"] as? NSNumber)?.int64Value == chunk.endMs)
        #expect(report["firstFrameISO"] as? String == WallClock.iso8601(ms: chunk.startMs))

        let copyURL = try TestFiles.makeDirectory("copied")
        let misleadingName = ChunkNaming.chunkFileName(stamp: ChunkNaming.stamp(forMs: 1_600_000_000_000), format: chunk.format)
        try FileManager.default.copyItem(atPath: chunkPath, toPath: copyURL.appendingPathComponent(misleadingName).path)
        let copied = try ChunkStore(directory: copyURL.path, capBytes: 1 << 30, logger: .init(label: "test")).allChunks
        #expect(copied.map(\.startMs) == [chunk.startMs] && copied.map(\.endMs) == [chunk.endMs])
        #expect(copied.map(\.frameCount) == [chunk.frameCount])
    }

    @Test("6 s MP4 and 30 s MOV chunks of a 31 s file read right in every reader", arguments: [(VideoFormat.mp4, 6000), (.mov, 30_000)])
    func longChunksReadRight(format: VideoFormat, chunkMs: Int) async throws {
        let input = try TestFiles.makeTestVideo(seconds: 31)
        let storeURL = try TestFiles.makeDirectory("long-\(format.rawValue)")
        var config = RecorderHarness.config(source: input.path, store: storeURL, chunkMs: chunkMs)
        config.videoFormat = format
        let harness = try RecorderHarness(config: config, storeDirectory: storeURL)
        try await harness.run()
        let chunks = harness.store.allChunks
        let framesPerChunk = chunkMs * 30 / 1000
        #expect(chunks.map(\.frameCount) == Array(repeating: framesPerChunk, count: 930 / framesPerChunk) + [930 % framesPerChunk])
        for chunk in chunks where chunk.frameCount == framesPerChunk {
            let lines = try #require(TimestampsFile.read(path: storeURL.appendingPathComponent(chunk.timestampsFileName).path))
            try FinishedChunkCheck.expectFinished(storeURL.appendingPathComponent(chunk.fileName).path, frameTimesMs: lines, fps: 30)
        }
    }

    @Test("mov format and chunk length changes apply from the next chunk; cap changes at once")
    func settingsChangeMidRun() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 4)
        let storeURL = try TestFiles.makeDirectory("change")
        var config = RecorderHarness.config(source: input.path, store: storeURL, loop: true)
        let harness = try RecorderHarness(config: config, storeDirectory: storeURL)
        config.videoFormat = .mov
        config.videoChunkDurationMs = 3000
        let changed = config
        // Applied on the recording thread right after the second chunk is published. The
        // third chunk was already planned by then (the encoder runs a few frames behind
        // capture), so the new settings start with the fourth.
        let recorder = harness.recorder
        let published = Atomic<Int>(0)
        recorder.onChunkSaved { _ in
            if published.add(1, ordering: .relaxed).newValue == 2 { recorder.apply(changed) }
        }
        try await harness.run(stopWhen: { $0.savedChunks.count >= 7 })
        let chunks = harness.savedChunks
        let before = chunks.prefix(3)
        let after = chunks.dropFirst(3).dropLast()
        #expect(before.allSatisfy { $0.format == .mp4 && $0.frameCount == 60 }, "\(chunks.map { ($0.format, $0.frameCount) })")
        #expect(after.count >= 3 && after.allSatisfy { $0.format == .mov && $0.frameCount == 90 }, "\(chunks.map { ($0.format, $0.frameCount) })")
        for chunk in after {
            let decoded = try DecodedChunk.decode(storeURL.appendingPathComponent(chunk.fileName).path)
            #expect(decoded.firstPacketIsKeyframe && decoded.decodedFrames == 90)
            let lines = try String(contentsOf: storeURL.appendingPathComponent(chunk.timestampsFileName), encoding: .utf8)
                .split(separator: "\n").map { Int64($0)! }
            try FinishedChunkCheck.expectFinished(storeURL.appendingPathComponent(chunk.fileName).path, frameTimesMs: lines, fps: 30)
        }

        let usedBefore = harness.store.usage.usedBytes
        config.videoBufferMaxMB = Double(usedBefore / 2) / 1_048_576
        harness.recorder.apply(config)
        #expect(harness.store.usage.usedBytes <= config.capBytes)
        #expect(TestFiles.storeBytes(in: storeURL) <= config.capBytes)
        #expect(harness.store.usage.chunksEvicted > 0)
    }
}
