import CFFmpeg
import Foundation
import Logging
import NIOCore
import Synchronization
import Testing

@testable import AllSparkNode

@Suite("live video")
struct LiveVideoTests {
    /// A packet whose bytes all equal its sequence number (mod 256), so a read can be checked.
    private func publish(_ ring: LivePacketRing, count: Int, bytes: Int, keyframeEvery: Int, from first: Int = 1) {
        for index in first..<(first + count) {
            let packet = [UInt8](repeating: UInt8(index % 256), count: bytes)
            packet.withUnsafeBytes {
                ring.publish($0, captureMs: Int64(index) * 100, durationMs: 100, isKeyframe: (index - 1) % keyframeEvery == 0)
            }
        }
    }

    private func beginSession(_ ring: LivePacketRing) {
        let sps: [UInt8] = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1F, 0xAC]
        sps.withUnsafeBufferPointer { ring.beginSession(width: 64, height: 64, fps: 10, extradata: $0) }
    }

    @Test("the ring hands out packets as published, and a lapped reader resumes at a keyframe")
    func ringLapsToAKeyframe() {
        let ring = LivePacketRing(byteCapacity: 1000, slotCount: 64)
        beginSession(ring)
        publish(ring, count: 25, bytes: 90, keyframeEvery: 5)
        var buffer: [UInt8] = []
        // 1000 bytes hold 11 packets of 90: the newest 11 (15...25) are readable, intact.
        for sequence in UInt64(15)...25 {
            guard case .packet(let info) = ring.read(sequence, into: &buffer) else {
                Issue.record("packet \(sequence) should still be held")
                continue
            }
            #expect(info.byteCount == 90 && info.captureMs == Int64(sequence) * 100)
            #expect(buffer.prefix(90).allSatisfy { $0 == UInt8(sequence) })
        }
        #expect(ring.read(26, into: &buffer) == .pending)
        // Packet 3 was overwritten; the first keyframe still held is 16 (1, 6, 11, 16, 21 are keyframes).
        #expect(ring.read(3, into: &buffer) == .lapped(resumeAt: 16))
        #expect(ring.newestKeyframe() == 21)
    }

    @Test("a reader's buffer starts empty, grows in whole steps to the largest packet, and is kept for smaller ones")
    func readerBufferGrowsInSteps() {
        let step = LivePacketRing.readerBufferStep
        let ring = LivePacketRing(byteCapacity: 8 * step, slotCount: 16)
        beginSession(ring)
        publish(ring, count: 1, bytes: step + 1, keyframeEvery: 1, from: 1)
        publish(ring, count: 1, bytes: 300, keyframeEvery: 1, from: 2)
        publish(ring, count: 1, bytes: 2 * step, keyframeEvery: 1, from: 3)
        var buffer: [UInt8] = []
        guard case .packet(let first) = ring.read(1, into: &buffer) else {
            Issue.record("packet 1 should be held")
            return
        }
        #expect(first.byteCount == step + 1)
        #expect(buffer.count == 2 * step)
        #expect(buffer.prefix(step + 1).allSatisfy { $0 == 1 })
        let grown = buffer.withUnsafeBufferPointer { $0.baseAddress }
        guard case .packet(let second) = ring.read(2, into: &buffer) else {
            Issue.record("packet 2 should be held")
            return
        }
        // A smaller packet is read into the same storage: no allocation.
        #expect(second.byteCount == 300 && buffer.count == 2 * step)
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == grown)
        #expect(buffer.prefix(300).allSatisfy { $0 == 2 })
        guard case .packet(let third) = ring.read(3, into: &buffer) else {
            Issue.record("packet 3 should be held")
            return
        }
        // A packet the size of the buffer fits as it is.
        #expect(third.byteCount == 2 * step && buffer.count == 2 * step)
        #expect(buffer.allSatisfy { $0 == 3 })
    }

    @Test("packets of mixed sizes survive wrap-around; slots bound the count too")
    func ringWrapsWithoutCorruption() {
        let ring = LivePacketRing(byteCapacity: 4096, slotCount: 8)
        beginSession(ring)
        var buffer: [UInt8] = []
        for index in 1...200 {
            let size = 50 + (index * 37) % 700
            let packet = [UInt8](repeating: UInt8(index % 256), count: size)
            packet.withUnsafeBytes { ring.publish($0, captureMs: Int64(index), durationMs: 1, isKeyframe: index % 10 == 1) }
            // Every packet still held reads back whole and unchanged.
            var held = 0
            for sequence in UInt64(max(1, index - 10))...UInt64(index) {
                if case .packet(let info) = ring.read(sequence, into: &buffer) {
                    held += 1
                    #expect(buffer.prefix(info.byteCount).allSatisfy { $0 == UInt8(sequence % 256) })
                    #expect(info.byteCount == 50 + (Int(sequence) * 37) % 700)
                }
            }
            #expect(held >= 1 && held <= 8)
        }
    }

    @Test("packets before the first session are not offered (no decoder could use them)")
    func ringNeedsASession() {
        let ring = LivePacketRing(byteCapacity: 1000, slotCount: 8)
        publish(ring, count: 3, bytes: 10, keyframeEvery: 1)
        var buffer: [UInt8] = []
        #expect(ring.read(1, into: &buffer) != .pending)
        if case .packet = ring.read(1, into: &buffer) { Issue.record("a packet without a session was offered") }
    }

    @Test("a reader waiting for a packet wakes when it is stopped, not at its wait's timeout")
    func stoppedReaderWakes() {
        let ring = LivePacketRing(byteCapacity: 1000, slotCount: 8)
        let stopping = Atomic<Bool>(false)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Ten minutes: only a stop that is slept through reaches it.
            ring.waitForPacket(ring.nextSequence, session: 0, timeoutMs: 600_000) { stopping.load(ordering: .acquiring) }
            returned.signal()
        }
        ring.wakeReaders { stopping.store(true, ordering: .releasing) }
        #expect(returned.wait(timeout: .now() + 120) == .success, "the waiting reader slept through its stop")
    }

    private func sessionStart() -> LiveSessionStart {
        LiveSessionStart(
            parameters: LiveStreamParameters(session: 1, width: 64, height: 64, fps: 30, extradata: []),
            initializationSegment: ByteBuffer(string: "init"), codecs: "avc1.64001F")
    }

    @Test("LL-HLS: 200 ms parts, INDEPENDENT keyframe parts, segments at keyframes, tokens on every URI")
    func playlistParts() throws {
        let playlist = LiveHLSPlaylist(keyframeIntervalMs: 1000)
        playlist.begin(sessionStart())
        // 2.5 s at 30 fps (33/34 ms frames), a keyframe every 30 frames.
        for frame in 0..<75 {
            playlist.append(
                captureMs: Int64(frame) * 1000 / 30, durationMs: frame % 3 == 2 ? 34 : 33, isKeyframe: frame % 30 == 0,
                mp4: ByteBuffer(string: "f\(frame);"))
        }
        let text = try #require(playlist.render(query: "?token=a%2Fb"))
        #expect(text.contains("#EXT-X-TARGETDURATION:2"))
        #expect(text.contains("#EXT-X-MAP:URI=\"init-1.mp4?token=a%2Fb\""))
        #expect(text.contains("#EXTINF:1.000,\nseg-0.mp4?token=a%2Fb"))
        // Each segment's wall-clock start: segment 1 began with frame 30, captured at 1000 ms.
        #expect(text.contains("#EXT-X-PROGRAM-DATE-TIME:1970-01-01T00:00:01.000Z\n#EXT-X-PART:DURATION=0.200,URI=\"part-5.mp4"))
        // Parts are numbered across segments: segment 1 (frames 30...59) holds parts 5...9.
        #expect(text.contains("#EXT-X-PART:DURATION=0.200,URI=\"part-5.mp4?token=a%2Fb\",INDEPENDENT=YES"))
        #expect(text.contains("#EXT-X-PART:DURATION=0.200,URI=\"part-6.mp4?token=a%2Fb\"\n"))
        // Frames 60...74: parts 10 and 11 complete (12 frames), frames 72...74 still filling part 12.
        #expect(text.hasSuffix("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part-12.mp4?token=a%2Fb\"\n"))
        guard case .found(let part) = playlist.part(11) else {
            Issue.record("part 11 should exist")
            return
        }
        #expect(part.map { String(buffer: $0) } == (66..<72).map { "f\($0);" })
        let segment = try #require(playlist.segment(1))
        #expect(segment.map { String(buffer: $0) }.joined() == (30..<60).map { "f\($0);" }.joined())
        #expect(playlist.segment(2) == nil, "the open segment is not served whole")
        guard case .upcoming = playlist.part(12) else {
            Issue.record("the hinted part should be upcoming")
            return
        }
        #expect(playlist.availability(of: .init(segment: 2, part: 1)) == .ready)
        #expect(playlist.availability(of: .init(segment: 2, part: 2)) == .waiting)
        #expect(playlist.availability(of: .init(segment: 5, part: 0)) == .tooFarAhead)
        // Frames 75...89 end part 12 and fill segment 2's five parts; a client that read
        // them asks for the sixth (segment 2, part 5), which is part 15, the next segment's
        // first: the keyframe that ends segment 2 does not make it exist.
        for frame in 75...90 {
            playlist.append(
                captureMs: Int64(frame) * 1000 / 30, durationMs: frame % 3 == 2 ? 34 : 33, isKeyframe: frame % 30 == 0,
                mp4: ByteBuffer(string: "f\(frame);"))
        }
        #expect(playlist.availability(of: .init(segment: 2, part: 5)) == .waiting)
        #expect(playlist.availability(of: .init(segment: 3, part: 0)) == .waiting)
        for frame in 91...95 {
            playlist.append(
                captureMs: Int64(frame) * 1000 / 30, durationMs: frame % 3 == 2 ? 34 : 33, isKeyframe: false,
                mp4: ByteBuffer(string: "f\(frame);"))
        }
        #expect(playlist.availability(of: .init(segment: 2, part: 5)) == .ready)
        #expect(playlist.availability(of: .init(segment: 2, part: 4)) == .ready)
    }

    @Test("the fMP4 feed keeps what a viewer may still be sent: no fragment more than the lag limit behind the newest")
    func feedWindowByAge() {
        let feed = LiveFragmentFeed(maximumAgeMs: 1500)
        feed.begin(sessionStart())
        // 3 s at 30 fps, a frame every 33 1/3 ms.
        for frame in 0..<90 {
            feed.append(session: 1, captureMs: 10_000 + Int64(frame) * 1000 / 30, durationMs: 33, isKeyframe: frame % 30 == 0,
                        mp4: ByteBuffer(string: "f\(frame)"))
        }
        // Sequence n holds frame n - 1. Newest: frame 89 at 12966 ms; frame 44 (11466 ms) is
        // 1500 ms behind it and stays, frame 43 (11433 ms) is further and has left.
        #expect(feed.read(44).isLapped)
        #expect(feed.read(45).isFragment(named: "f44"))
        #expect(feed.read(90).isFragment(named: "f89"))
        #expect(feed.read(91).isPending)
    }

    @Test("HLS parts hold the feed's fragments themselves, not copies")
    func partsShareTheFeedsBuffers() throws {
        let feed = LiveFragmentFeed(maximumAgeMs: 1500)
        let playlist = LiveHLSPlaylist(keyframeIntervalMs: 1000)
        feed.begin(sessionStart())
        playlist.begin(sessionStart())
        for frame in 0..<12 {
            let mp4 = ByteBuffer(string: "fragment \(frame)")
            feed.append(session: 1, captureMs: Int64(frame) * 33, durationMs: 33, isKeyframe: frame == 0, mp4: mp4)
            playlist.append(captureMs: Int64(frame) * 33, durationMs: 33, isKeyframe: frame == 0, mp4: mp4)
        }
        guard case .found(let part) = playlist.part(0), case .fragment(let held) = feed.read(1) else {
            Issue.record("part 0 and the first fragment should be held")
            return
        }
        #expect(part.count == 7, "200 ms of 33 ms frames")
        let partAddress = part[0].withUnsafeReadableBytes { $0.baseAddress }
        let feedAddress = held.mp4.withUnsafeReadableBytes { $0.baseAddress }
        #expect(partAddress != nil && partAddress == feedAddress)
        #expect(part.map { String(buffer: $0) }.joined() == (0..<7).map { "fragment \($0)" }.joined())
    }

    @Test("playlist durations: seconds with three decimals, whatever the milliseconds")
    func playlistDurations() {
        #expect(LiveHLSPlaylist.seconds(0) == "0.000")
        #expect(LiveHLSPlaylist.seconds(34) == "0.034")
        #expect(LiveHLSPlaylist.seconds(200) == "0.200")
        #expect(LiveHLSPlaylist.seconds(1005) == "1.005")
        #expect(LiveHLSPlaylist.seconds(12_340) == "12.340")
    }

    @Test("libavformat's fMP4 in memory: an init segment, then one prft+moof+mdat per frame, that ffprobe reads")
    func fragmentsFromTheEncoder() throws {
        let muxed = try muxTwentyEncodedFrames(fragmentsPerContext: 9_000)
        #expect(muxed.contexts == 1)
        let probe = try TestFiles.run(
            "/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", muxed.path])
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "20")
    }

    @Test("a muxer renewed at a keyframe (libavformat's per-fragment records bounded) continues the stream: every frame, decode times unbroken")
    func renewedMuxerContinuesTheStream() throws {
        // Keyframes every 10 frames (1 s at 10 fps): the renewal comes at frame 10.
        let muxed = try muxTwentyEncodedFrames(fragmentsPerContext: 4)
        #expect(muxed.contexts == 2)
        let probe = try TestFiles.run(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "packet=dts_time", "-of", "csv=p=0", muxed.path])
        let times = probe.output.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        #expect(times.count == 20, "\(probe.output)")
        for (index, time) in times.enumerated() {
            #expect(abs(time - (times.first ?? 0) - Double(index) * 0.1) < 0.002, "frame \(index) at \(time) s: \(times)")
        }
        let decoded = try TestFiles.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", muxed.path, "-f", "null", "-"])
        #expect(decoded.output.isEmpty, "decodes without an error: \(decoded.output)")
    }

    /// Encodes 20 frames of 64x64 at 10 fps and muxes them to fMP4 in memory, written to a file.
    private func muxTwentyEncodedFrames(fragmentsPerContext: Int) throws -> (path: String, contexts: Int) {
        let encoder = try H264Encoder(settings: EncoderSettings(), width: 64, height: 64, fps: 10, logger: Logger(label: "test.live"))
        let context = try #require(encoder.context)
        let extradata = Array(UnsafeBufferPointer(start: context.pointee.extradata, count: Int(context.pointee.extradata_size)))
        #expect(H264CodecString.from(extradata: extradata)?.hasPrefix("avc1.") == true)
        let muxer = try MemoryFragmentMuxer(
            parameters: LiveStreamParameters(session: 1, width: 64, height: 64, fps: 10, extradata: extradata),
            fragmentsPerContext: fragmentsPerContext)
        #expect(muxer.initializationSegment.getBytes(at: 4, length: 4) == Array("ftyp".utf8))
        let frame = try OwnedFrame(width: 64, height: 64, format: AV_PIX_FMT_YUV420P)
        var file = Array(buffer: muxer.initializationSegment)
        var fragments = 0
        let packet = av_packet_alloc()!
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        for index in 0...20 {
            if index < 20 {
                for plane in 0..<3 {
                    memset(frame.plane(plane)!, Int32(index * 10 + plane * 40), frame.lineSize(plane) * (plane == 0 ? 64 : 32))
                }
                frame.pointer.pointee.pts = Int64(index) * 100
                try encoder.send(frame.pointer)
            } else {
                try encoder.send(nil)
            }
            while try encoder.receive(into: packet) {
                let bytes = UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
                let captureMs = 1_790_000_000_000 + packet.pointee.pts
                let fragment = try muxer.fragment(
                    of: bytes, ptsMs: packet.pointee.pts, durationMs: 100, isKeyframe: packet.pointee.flags & AV_PKT_FLAG_KEY != 0,
                    captureMs: captureMs)
                // prft (ISO/IEC 14496-12 8.16.5): size, type, version and flags, track id, then
                // the capture time in NTP format (seconds since 1900, 32-bit fraction).
                #expect(fragment.getBytes(at: 4, length: 4) == Array("prft".utf8))
                let prftSize = Int(try #require(fragment.getInteger(at: 0, as: UInt32.self)))
                let ntp = try #require(fragment.getInteger(at: 16, as: UInt64.self))
                let ntpMs = Int64(ntp >> 32) * 1000 + Int64(((ntp & 0xFFFF_FFFF) * 1000 + 0x8000_0000) >> 32) - 2_208_988_800_000
                #expect(ntpMs == captureMs, "the prft carries the capture time")
                #expect(fragment.getBytes(at: prftSize + 4, length: 4) == Array("moof".utf8))
                file += Array(buffer: fragment)
                fragments += 1
                av_packet_unref(packet)
            }
        }
        #expect(fragments == 20)
        let path = try TestFiles.makeDirectory("live-fmp4").appendingPathComponent("live.mp4")
        try Data(file).write(to: path)
        return (path.path, muxer.contextsOpened)
    }
}

extension LiveFragmentFeed.ReadResult {
    fileprivate var isLapped: Bool { if case .lapped = self { true } else { false } }
    fileprivate var isPending: Bool { if case .pending = self { true } else { false } }
    fileprivate func isFragment(named name: String) -> Bool {
        if case .fragment(let fragment) = self { String(buffer: fragment.mp4) == name } else { false }
    }
}
