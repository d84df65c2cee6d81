import CFFmpeg
import Foundation
import Logging
import Testing

@testable import AllSparkNode

@Suite("encoder.options")
struct EncoderOptionsTests {
    let logger = Logger(label: "test.encoder")

    private func encoder(options: String) throws -> H264Encoder {
        var settings = EncoderSettings()
        settings.options = options
        return try H264Encoder(settings: settings, width: 320, height: 240, fps: 30, logger: logger)
    }

    @Test("libx264 runs with the node's camera settings; options override them")
    func optionsApplyOverThePreset() throws {
        // libx264 reports the B-frame delay it chose in has_b_frames.
        let plain = try encoder(options: "")
        #expect(plain.context!.pointee.has_b_frames == 0, "the node's default: no B-frames")
        let withBFrames = try encoder(options: "x264-params=bframes=3:rc-lookahead=10")
        #expect(withBFrames.context!.pointee.has_b_frames > 0)
        let twoOptions = try encoder(options: "tune=film,x264-params=bframes=2")
        #expect(twoOptions.context!.pointee.has_b_frames > 0)
    }

    /// Frames sent before the first packet comes out: what the encoder adds to live latency.
    private func framesSentBeforeFirstPacket(options: String) throws -> Int {
        let encoder = try encoder(options: options)
        let frame = try OwnedFrame(width: 320, height: 240, format: AV_PIX_FMT_YUV420P)
        let packet = av_packet_alloc()!
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        for index in 0..<10 {
            for plane in 0..<3 {
                memset(frame.plane(plane)!, Int32(index * 20 + plane * 40), frame.lineSize(plane) * (plane == 0 ? 240 : 120))
            }
            // Capture times in ms, one frame lost after the first: as a camera's come.
            frame.pointer.pointee.pts = Int64(index == 0 ? 0 : index + 1) * 33
            try encoder.send(frame.pointer)
            if try encoder.receive(into: packet) {
                #expect(packet.pointee.pts == 0, "the first packet is the first frame's, at its own time")
                return index + 1
            }
        }
        return .max
    }

    @Test("the camera settings hold two frames in the encoder (the lookahead), not three; timestamps pass through")
    func cameraSettingsHoldTwoFrames() throws {
        #expect(try framesSentBeforeFirstPacket(options: "") == 3)
        // Without force-cfr libx264 waits for the next frame's time as well.
        #expect(try framesSentBeforeFirstPacket(options: "x264-params=bframes=0:rc-lookahead=2:sliced-threads=1") == 4)
    }

    @Test("an option the encoder lacks is an error naming it, and run refuses to start")
    func unknownOptionIsRefused() throws {
        #expect {
            _ = try encoder(options: "tune=zerolatency,no-such-option=1")
        } throws: { error in
            "\(error)".contains("no-such-option") && "\(error)".contains("encoder.options")
        }
        let storeURL = try TestFiles.makeDirectory("options").appendingPathComponent("store")
        let run = try TestFiles.run(
            TestFiles.nodeExecutable.path, ["run", "--config", "/dev/null", "--store", storeURL.path, "--privacy", "none"],
            environment: ProcessInfo.processInfo.environment.merging(["ALLSPARK_ENCODER_OPTIONS": "no-such-option=1"]) { $1 })
        #expect(run.status != 0)
        #expect(run.output.contains("no-such-option"))
    }
}
