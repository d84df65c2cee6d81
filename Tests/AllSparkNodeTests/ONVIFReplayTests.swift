import CFFmpeg
import Foundation
import Logging
import Synchronization
import Testing
@testable import AllSparkNode

/// Profile G's replay: the replay service's answers, and the source the RTSP replay mount
/// plays, over chunks the real recorder made (5 s of the test pattern in 2 s chunks, a key
/// frame a second).
@Suite(.serialized)
struct ONVIFReplayTests {
    private actor SharedRecording {
        private var footage: ReplayFootage?

        func get() async throws -> ReplayFootage {
            if let footage { return footage }
            let directory = try TestFiles.makeDirectory("replay")
            let video = try TestFiles.makeTestVideo(seconds: 5)
            let harness = try RecorderHarness(
                config: RecorderHarness.config(source: video.path, store: directory, chunkMs: 2000), storeDirectory: directory)
            try await harness.run()
            let made = ReplayFootage(store: harness.store)
            footage = made
            return made
        }
    }

    private static let shared = SharedRecording()

    /// Every frame the source sends from its position: time, key frame, NAL unit types.
    private static func play(_ source: ReplaySource) -> [(ns: UInt64, key: Bool, nals: [UInt8])] {
        var frames: [(UInt64, Bool, [UInt8])] = []
        while let frame = source.nextFrame() {
            let bytes = UnsafeRawBufferPointer(start: frame.packet.pointee.data, count: Int(frame.packet.pointee.size))
            var types: [UInt8] = []
            H264Framing.annexB.forEachNAL(in: bytes) { _, nal in
                types.append(nal[nal.startIndex] & 0x1F)
                return true
            }
            frames.append((frame.ns, frame.isKeyframe, types))
            av_packet_unref(frame.packet)
        }
        return frames
    }

    @Test("a PLAY starts at the key frame at or before its start, sends Annex B with SPS/PPS before key frames, and ends at its end")
    func playsARange() async throws {
        let footage = try await Self.shared.get()
        let chunks = footage.chunks(from: .min).map(\.record)
        try #require(chunks.count >= 2, "the recording made \(chunks.count) chunks")
        let startNs = NTPTime.nanoseconds(unixMs: chunks[0].startMs + 1_500)
        let stopNs = NTPTime.nanoseconds(unixMs: chunks[1].startMs + 1_200)
        let source = ReplaySource(footage: footage)
        let keyframe = try #require(source.resolve(startNs: startNs, stopNs: stopNs, rate: 1, keyFramesOnly: false))
        #expect(keyframe <= startNs && startNs - keyframe <= 1_000_000_000, "key frame \(keyframe), start \(startNs)")
        source.seek(to: keyframe)
        let frames = Self.play(source)
        let first = try #require(frames.first)
        #expect(first.ns == keyframe && first.key)
        #expect(first.nals.contains(7) && first.nals.contains(8) && first.nals.contains(5), "key frame NALs \(first.nals)")
        #expect(frames.allSatisfy { $0.ns <= stopNs })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.ns < $1.ns })
        // The recording's frame rate from the key frame to the stop, across the two chunks.
        let frameIntervalNs = UInt64(chunks[0].endMs - chunks[0].startMs) * 1_000_000 / UInt64(chunks[0].frameCount - 1)
        let expected = Int((stopNs - keyframe) / frameIntervalNs) + 1
        #expect(abs(frames.count - expected) <= 2, "\(frames.count) frames, about \(expected) expected")
        #expect(frames.filter { !$0.key }.allSatisfy { !$0.nals.contains(7) && !$0.nals.contains(5) })
    }

    @Test("key frames only (Frames: intra); a start in a gap plays from the next footage; none after the end")
    func keyFramesGapsAndTheEnd() async throws {
        let footage = try await Self.shared.get()
        let chunks = footage.chunks(from: .min).map(\.record)
        let source = ReplaySource(footage: footage)
        let keyframe = try #require(source.resolve(
            startNs: NTPTime.nanoseconds(unixMs: chunks[0].startMs), stopNs: nil, rate: 1, keyFramesOnly: true))
        source.seek(to: keyframe)
        let keys = Self.play(source)
        #expect(keys.count >= 4 && keys.allSatisfy(\.key), "\(keys.count) frames")

        let before = NTPTime.nanoseconds(unixMs: chunks[0].startMs - 60_000)
        #expect(source.resolve(startNs: before, stopNs: nil, rate: 1, keyFramesOnly: false) == NTPTime.nanoseconds(unixMs: chunks[0].startMs))
        #expect(source.resolve(startNs: before, stopNs: before + 1_000_000_000, rate: 1, keyFramesOnly: false) == nil)
        let after = NTPTime.nanoseconds(unixMs: chunks[chunks.count - 1].endMs + 5_000)
        #expect(source.resolve(startNs: after, stopNs: nil, rate: 1, keyFramesOnly: false) == nil)
        source.seek(to: after)
        #expect(source.nextFrame() == nil)
    }

    @Test("a gap in the footage starts a new section whose running time goes on from the last one's end")
    func gapsAreNotWaitedOut() async throws {
        let recorded = try await Self.shared.get()
        let chunks = recorded.chunks(from: .min).map(\.record)
        try #require(chunks.count >= 2)
        // The second chunk moved a minute later: a store with a gap between its chunks.
        let directory = try TestFiles.makeDirectory("replay-gap")
        let moved = chunks[1].startMs + 60_000
        let stamp = ChunkNaming.stamp(forMs: moved)
        for (chunk, name) in [(chunks[0], chunks[0].stamp), (chunks[1], stamp)] {
            try FileManager.default.copyItem(
                at: recorded.store.directory.appendingPathComponent(chunk.fileName),
                to: directory.appendingPathComponent(ChunkNaming.chunkFileName(stamp: name, format: chunk.format)))
            let times = try String(contentsOf: recorded.store.directory.appendingPathComponent(chunk.timestampsFileName), encoding: .utf8)
            let shifted = name == stamp
                ? times.split(separator: "\n").map { String(Int64($0)! + 60_000) }.joined(separator: "\n") + "\n" : times
            try shifted.write(to: directory.appendingPathComponent(ChunkNaming.timestampsFileName(stamp: name)), atomically: true, encoding: .utf8)
        }
        let store = try ChunkStore(directory: directory.path, capBytes: 1 << 30, logger: Logger(label: "test"))
        #expect(store.allChunks.count == 2)
        let source = ReplaySource(footage: ReplayFootage(store: store))
        let start = try #require(source.resolve(startNs: NTPTime.nanoseconds(unixMs: chunks[0].startMs), stopNs: nil, rate: 1, keyFramesOnly: false))
        source.seek(to: start)
        var sections: [(startNs: UInt64, baseNs: UInt64, discont: Bool)] = []
        var lastBefore: UInt64 = 0
        while let frame = source.nextFrame() {
            let section = source.section(of: frame)
            if sections.last.map({ $0.startNs != section.startNs }) ?? true { sections.append(section) }
            if sections.count == 1 { lastBefore = frame.ns }
            av_packet_unref(frame.packet)
        }
        try #require(sections.count == 2, "\(sections.count) sections")
        #expect(!sections[0].discont && sections[0].baseNs == 0)
        #expect(sections[1].discont && sections[1].startNs == NTPTime.nanoseconds(unixMs: moved))
        #expect(sections[1].baseNs == lastBefore - sections[0].startNs)
    }

    @Test("the replay service: the URI from the request's host, the session timeout set and read back, bad values refused")
    func service() throws {
        let seconds = Mutex(0)
        let timeout = ReplaySessionTimeout(read: { seconds.withLock { $0 } }, set: { value in seconds.withLock { $0 = value } })
        let service = ReplayService(sessionTimeout: timeout)
        func answer(_ operation: String, _ inner: String = "") throws -> XMLNode {
            try ONVIFServiceTests.answer(service, operation, namespace: SOAPNamespace.replay, inner: inner)
        }
        let uri = try answer("GetReplayUri", "<StreamSetup><Stream xmlns=\"\(SOAPNamespace.schema)\">RTP-Unicast</Stream></StreamSetup><RecordingToken>recording</RecordingToken>")
        #expect(uri.descendant("Uri")?.text == "rtsp://10.0.0.5:8554/replay")
        #expect(throws: SOAPFault.self) { try answer("GetReplayUri", "<RecordingToken>other</RecordingToken>") }
        #expect(try answer("GetReplayConfiguration").descendant("SessionTimeout")?.text == "PT60S")
        _ = try answer("SetReplayConfiguration", "<Configuration><SessionTimeout xmlns=\"\(SOAPNamespace.schema)\">PT2M</SessionTimeout></Configuration>")
        #expect(seconds.withLock { $0 } == 120)
        #expect(try answer("GetReplayConfiguration").descendant("SessionTimeout")?.text == "PT120S")
        for bad in ["PT0S", "PT11M", "PT1.5S", "soon"] {
            #expect(throws: SOAPFault.self) {
                try answer("SetReplayConfiguration", "<Configuration><SessionTimeout xmlns=\"\(SOAPNamespace.schema)\">\(bad)</SessionTimeout></Configuration>")
            }
        }
        #expect(seconds.withLock { $0 } == 120)
        let capabilities = try answer("GetServiceCapabilities")
        #expect(capabilities.descendant("Capabilities")?.attributes["ReversePlayback"] == "false")
    }

    @Test("replay is listed by GetCapabilities and GetServices, and Profile G is in the scopes, only while RTSP serves it")
    func advertised() throws {
        let on = ONVIFEndpoint(scheme: "http", host: "10.0.0.5", port: 8090, rtspPort: 8554)
        let off = ONVIFEndpoint(scheme: "http", host: "10.0.0.5", port: 8090, rtspPort: 0)
        #expect(try DeviceCapabilities.capabilities(at: on, category: "All").contains("http://10.0.0.5:8090/onvif/replay_service"))
        #expect(try !DeviceCapabilities.capabilities(at: off, category: "All").contains("replay_service"))
        let video = ONVIFRecordingSearchTests.video
        #expect(DeviceCapabilities.services(at: on, video: video, includeCapability: false).contains(SOAPNamespace.replay))
        #expect(!DeviceCapabilities.services(at: off, video: video, includeCapability: false).contains(SOAPNamespace.replay))
        #expect(ONVIFDeviceFacts.scopes(name: "cam", replays: true).contains("onvif://www.onvif.org/Profile/G"))
        #expect(!ONVIFDeviceFacts.scopes(name: "cam", replays: false).contains("onvif://www.onvif.org/Profile/G"))
    }
}
