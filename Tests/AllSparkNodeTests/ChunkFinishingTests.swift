import CFFmpeg
import Foundation
import Testing
@testable import AllSparkNode

/// The finish in place (fragmented part file → ordinary MP4/MOV), a crash at each of its
/// steps, and the in-stream time stamp, on files the ffmpeg CLI fragments as the node does.
@Suite(.serialized)
struct ChunkFinishingTests {
    private static let startMs: Int64 = 1_790_000_000_123

    /// A 2 s, 60-frame fragmented file as `FragmentedMuxer` writes one, placed in a new
    /// store directory as the part file of a chunk starting at `startMs`.
    private func partFile(format: VideoFormat, bFrames: Bool = false) throws -> (store: URL, part: String) {
        let store = try TestFiles.makeDirectory("finish")
        let stamp = ChunkNaming.stamp(forMs: Self.startMs)
        let part = store.appendingPathComponent(ChunkNaming.partFileName(stamp: stamp, format: format)).path
        let result = try TestFiles.run("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-frames:v", "60",
            "-c:v", "libx264", "-preset", "ultrafast", "-x264-params", bFrames ? "bframes=2" : "bframes=0", "-g", "30",
            "-movflags", FragmentedMuxer.Layout.fragmented.movflags,
            "-frag_duration", String(FragmentedMuxer.maximumFragmentMicroseconds), "-f", format.rawValue, part,
        ])
        guard result.status == 0 else { throw TestFailure("ffmpeg failed: \(result.output)") }
        return (store, part)
    }

    private func sidecar(_ record: ChunkRecord, in store: URL) throws -> [Int64] {
        try #require(TimestampsFile.read(path: store.appendingPathComponent(record.timestampsFileName).path))
    }

    @Test("a finished MP4 or MOV is an ordinary file with true durations, without copying the media", arguments: [VideoFormat.mp4, .mov])
    func finishInPlace(format: VideoFormat) throws {
        let (_, part) = try partFile(format: format)
        let fragmentedBytes = DurableFile.size(of: part)
        try ChunkFinisher.finish(path: part, firstFrameEpochMs: Self.startMs)
        let times = (0..<60).map { Self.startMs + Int64($0) * 1000 / 30 }
        try FinishedChunkCheck.expectFinished(part, frameTimesMs: times, fps: 30, stamped: false)
        #expect(DurableFile.size(of: part) - fragmentedBytes <= ChunkFinisher.maximumAddedBytes(frames: 60))
        let decoded = try DecodedChunk.decode(part)
        #expect(decoded.decodedFrames == 60 && decoded.firstPacketIsKeyframe)
        #expect(throws: FinishingError.self) { try ChunkFinisher.finish(path: part, firstFrameEpochMs: Self.startMs) }
    }

    @Test("B-frames: composition offsets and an edit list keep the first frame at time 0")
    func finishWithBFrames() throws {
        let (_, part) = try partFile(format: .mp4, bFrames: true)
        try ChunkFinisher.finish(path: part, firstFrameEpochMs: Self.startMs)
        let boxes = try FinishedChunkCheck.boxes(part)
        #expect(boxes.movieTree.contains("ctts") && boxes.movieTree.contains("elst"))
        let decoded = try DecodedChunk.decode(part)
        #expect(decoded.decodedFrames == 60 && abs(decoded.presentationTimes[0]) < 0.001)
    }

    /// Where a finish can stop when the node dies (its steps: write and sync the new moov,
    /// then write and sync the mdat header).
    enum FinishStop: CaseIterable {
        case whileAppendingTheMovie
        case beforeTheLastStep
        case afterTheLastStep
    }

    @Test("a crash while the new moov is written, after it is, or after the last step, leaves a part that recovers whole")
    func crashMidFinishRecovers() throws {
        for stop in FinishStop.allCases {
            let (store, part) = try partFile(format: .mp4)
            switch stop {
            case .whileAppendingTheMovie:
                let fragmentedBytes = DurableFile.size(of: part)
                try ChunkFinisher.appendProgressiveMovie(to: FinishingFile(path: part), firstFrameEpochMs: Self.startMs)
                #expect(truncate(part, off_t(fragmentedBytes + 100)) == 0, "the moov torn after 100 bytes")
            case .beforeTheLastStep:
                try ChunkFinisher.appendProgressiveMovie(to: FinishingFile(path: part), firstFrameEpochMs: Self.startMs)
            case .afterTheLastStep:
                try ChunkFinisher.finish(path: part, firstFrameEpochMs: Self.startMs)
            }
            let stamp = ChunkNaming.stamp(forMs: Self.startMs)
            let record = try #require(ChunkRecovery.recoverPart(stamp: stamp, format: .mp4, in: store, logger: .init(label: "test")))
            #expect(record.frameCount == 60, "stopped \(stop)")
            #expect(TestFiles.fileNames(in: store) == [record.fileName, record.timestampsFileName])
            #expect(!FileManager.default.fileExists(atPath: part))
            try FinishedChunkCheck.expectFinished(
                store.appendingPathComponent(record.fileName).path, frameTimesMs: try sidecar(record, in: store), fps: 30, stamped: false)
        }
    }

    @Test("a part torn mid-fragment (SIGKILL, power cut) is finished where it lies: its intact fragments kept, no media copied")
    func tornPartRecoversInPlace() throws {
        let (store, part) = try partFile(format: .mov)
        var before = stat()
        stat(part, &before)
        #expect(truncate(part, off_t(DurableFile.size(of: part) * 6 / 10)) == 0)
        let stamp = ChunkNaming.stamp(forMs: Self.startMs)
        let record = try #require(ChunkRecovery.recoverPart(stamp: stamp, format: .mov, in: store, logger: .init(label: "test")))
        #expect(record.frameCount > 10 && record.frameCount < 60, "the fragments before the tear: \(record.frameCount) frames")
        let chunkPath = store.appendingPathComponent(record.fileName).path
        var after = stat()
        stat(chunkPath, &after)
        #expect(after.st_ino == before.st_ino, "the part itself became the chunk")
        try FinishedChunkCheck.expectFinished(chunkPath, frameTimesMs: try sidecar(record, in: store), fps: 30, stamped: false)
        #expect(try DecodedChunk.decode(chunkPath).decodedFrames == record.frameCount)
    }

    @Test("a power cut inside a fragment's media (the partial page not yet synced) keeps that fragment's whole samples")
    func tornInsideASampleKeepsTheWholeSamples() throws {
        let (store, part) = try partFile(format: .mp4)
        // Each packet's place in the file, by a reader nobody here wrote.
        let probe = try TestFiles.run("/usr/bin/ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pos,size", "-of", "csv=p=0", part,
        ])
        let packets = probe.output.split(separator: "\n").compactMap { line -> (pos: Int64, size: Int64)? in
            let fields = line.split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            // ffprobe prints a packet's size before its position, whatever order it is asked for.
            return fields.count == 2 ? (pos: fields[1], size: fields[0]) : nil
        }.sorted { $0.pos < $1.pos }
        try #require(packets.count == 60, "\(probe.output)")
        // Cut inside packet 41, which is not the first of its fragment (fragments start
        // every 250 ms, at packets 0, 8, 16, ...).
        let cutPacket = 41
        #expect(packets[cutPacket].pos > packets[cutPacket - 1].pos + packets[cutPacket - 1].size - 1, "packet 41 follows packet 40 in the same mdat")
        #expect(truncate(part, off_t(packets[cutPacket].pos + packets[cutPacket].size / 2)) == 0)
        let stamp = ChunkNaming.stamp(forMs: Self.startMs)
        let record = try #require(ChunkRecovery.recoverPart(stamp: stamp, format: .mp4, in: store, logger: .init(label: "test")))
        #expect(record.frameCount == cutPacket, "every packet before the cut, none after")
        let chunkPath = store.appendingPathComponent(record.fileName).path
        try FinishedChunkCheck.expectFinished(chunkPath, frameTimesMs: try sidecar(record, in: store), fps: 30, stamped: false)
        #expect(try DecodedChunk.decode(chunkPath).decodedFrames == cutPacket)
    }

    @Test("an interrupted finish is finished again: the stale appended moov is replaced")
    func finishAgainAfterInterruption() throws {
        let (_, part) = try partFile(format: .mov)
        try ChunkFinisher.appendProgressiveMovie(to: FinishingFile(path: part), firstFrameEpochMs: Self.startMs)
        try ChunkFinisher.finish(path: part, firstFrameEpochMs: Self.startMs)
        let times = (0..<60).map { Self.startMs + Int64($0) * 1000 / 30 }
        try FinishedChunkCheck.expectFinished(part, frameTimesMs: times, fps: 30, stamped: false)
    }

    @Test("the time stamp SEI round-trips through emulation prevention, in both framings")
    func precisionTimeStampRoundTrip() throws {
        // 00 00 in the time pieces would read as a start code without escaping.
        for micros: Int64 in [1_790_000_000_123_000, 0x0000_0100_0000_0003, 0x0003_0000_0000_0000] {
            var nal = [UInt8](repeating: 0, count: PrecisionTimeStampSEI.maximumNALBytes)
            let count = nal.withUnsafeMutableBufferPointer {
                PrecisionTimeStampSEI.writeNAL(epochMicroseconds: micros, status: PrecisionTimeStampSEI.lockedStatus, to: $0.baseAddress!)
            }
            let escaped = Array(nal[..<count])
            #expect(!zip(escaped, zip(escaped.dropFirst(), escaped.dropFirst(2))).contains { $0 == 0 && $1.0 == 0 && $1.1 <= 3 })
            #expect(escaped.withUnsafeBytes { PrecisionTimeStampSEI.read(nal: $0) } == micros)
        }
        // An access unit as libx264 gives it: SPS, PPS, then an IDR slice.
        let annexB: [UInt8] = [0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 9, 9, 9]
        let lengthPrefixed: [UInt8] = [0, 0, 0, 3, 0x67, 1, 2, 0, 0, 0, 2, 0x68, 3, 0, 0, 0, 4, 0x65, 9, 9, 9]
        let stamper = PrecisionTimeStamper()
        for original in [annexB, lengthPrefixed] {
            var source: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
            defer { av_packet_free(&source) }
            try checkLibav(av_new_packet(source, Int32(original.count)), "allocating")
            original.withUnsafeBytes { source!.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: original.count) }
            let stamped = try stamper.stamped(source!, epochMicroseconds: 1_790_000_000_123_000, status: PrecisionTimeStampSEI.unlockedStatus)
            let data = UnsafeRawBufferPointer(start: stamped.pointee.data, count: Int(stamped.pointee.size))
            var types: [UInt8] = []
            let consistent = H264Framing.of(data).forEachNAL(in: data) { _, nal in
                types.append(nal[0] & 0x1F)
                return true
            }
            #expect(consistent)
            #expect(types == [7, 8, 6, 5], "the SEI goes before the first slice")
            #expect(StreamTimeProbe.epochMicroseconds(in: data) == 1_790_000_000_123_000)
        }
    }
}
