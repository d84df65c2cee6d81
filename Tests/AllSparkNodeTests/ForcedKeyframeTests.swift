import Synchronization
import Testing
@testable import AllSparkNode

/// The key frames the recording loop forces: each chunk's first, and one for each request
/// (ONVIF's SetSynchronizationPoint), spaced at least `ForcedKeyframes.requestSpacingMs`
/// apart, a request made sooner waiting rather than lost; and the media services' operation
/// that makes the request.
struct ForcedKeyframeTests {
    @Test("a request makes the next frame a key frame, once; requests sooner than the spacing wait for it")
    func requestsAreSpaced() {
        let control = RecorderControl(settings: RecordingSettings(NodeConfig()))
        var forced = ForcedKeyframes()
        let chunkStart = forced.forces(captureMs: 0, startsChunk: true, control: control)
        let unasked = forced.forces(captureMs: 33, startsChunk: false, control: control)
        #expect(chunkStart && !unasked)
        // Asked 100 ms after the chunk's key frame: it waits until 1 s after it.
        control.requestKeyframe()
        let frames = (1...40).map { 66 + Int64($0) * 33 }
        let keyframes = frames.filter { forced.forces(captureMs: $0, startsChunk: false, control: control) }
        #expect(keyframes == [frames.first { $0 >= ForcedKeyframes.requestSpacingMs }!])
        #expect(!control.isKeyframeRequested)
        // A request a second later is answered by the next frame.
        control.requestKeyframe()
        let answered = forced.forces(captureMs: keyframes[0] + 2_000, startsChunk: false, control: control)
        let after = forced.forces(captureMs: keyframes[0] + 2_033, startsChunk: false, control: control)
        #expect(answered && !after)
    }

    @Test("SetSynchronizationPoint (Media and Media2) asks for a key frame for the profile, and refuses another profile")
    func mediaServicesAskForKeyframes() throws {
        let asked = Atomic<Int>(0)
        let video = ONVIFVideoSettings(width: 640, height: 360, fps: 15, bitrateKbps: 1000, gopLength: 15)
        let ask: @Sendable () -> Void = { asked.add(1, ordering: .relaxed) }
        let media = MediaService(video: video, requestKeyframe: ask)
        let media2 = Media2Service(video: video, requestKeyframe: ask)
        let answer = try ONVIFServiceTests.answer(
            media, "SetSynchronizationPoint", namespace: SOAPNamespace.media, inner: "<ProfileToken>main</ProfileToken>")
        #expect(answer.descendant("SetSynchronizationPointResponse") != nil)
        let answer2 = try ONVIFServiceTests.answer(
            media2, "SetSynchronizationPoint", namespace: SOAPNamespace.media2, inner: "<ProfileToken>main</ProfileToken>")
        #expect(answer2.descendant("SetSynchronizationPointResponse") != nil)
        #expect(asked.load(ordering: .relaxed) == 2)
        #expect(throws: SOAPFault.self) {
            try ONVIFServiceTests.answer(media, "SetSynchronizationPoint", namespace: SOAPNamespace.media, inner: "<ProfileToken>x</ProfileToken>")
        }
        #expect(asked.load(ordering: .relaxed) == 2)
    }
}
