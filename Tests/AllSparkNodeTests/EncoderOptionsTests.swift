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
