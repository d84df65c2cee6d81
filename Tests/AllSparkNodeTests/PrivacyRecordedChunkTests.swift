import Foundation
import Logging
import Testing

@testable import AllSparkNode

@Suite("Privacy: recorded chunks", .serialized)
struct PrivacyRecordedChunkTests {
    @Test("a chunk recorded from a video with faces: no face the input showed is detectable in it")
    func recordedChunksHaveNoFaces() async throws {
        let storeURL = try TestFiles.makeDirectory("privacy-chunks")
        defer { try? FileManager.default.removeItem(at: storeURL) }
        var config = RecorderHarness.config(source: FaceClip.carphone, store: storeURL)
        // Twice the clip's 176x144, so the detector works on the recorder's real output size.
        config.width = 352
        config.height = 288
        config.privacy = "face"
        let pass = try PrivacyPass(config: config, logger: .init(label: "test-privacy"))
        let harness = try RecorderHarness(config: config, storeDirectory: storeURL, makeMasker: pass.makeMasker)

        try await harness.run()

        let chunks = harness.store.allChunks
        try #require(!chunks.isEmpty)
        var recorded: [TestFrame] = []
        for chunk in chunks {
            recorded += try TestFrame.decodeVideo(storeURL.appendingPathComponent(chunk.fileName).path)
        }
        let input = try TestFrame.decodeVideo(FaceClip.carphone, filter: "scale=352:288")
        try #require(input.count == 120)
        #expect(recorded.count == input.count, "every frame is recorded (no pacing, no drops)")
        #expect(recorded.first.map { ($0.width, $0.height) } ?? (0, 0) == (352, 288))
        #expect(pass.counters.detector == "yunet")
        let checks = try FaceClip.checkNoFaceSurvives(input: input, output: recorded)
        let framesWithFaces = checks.netInput.filter { !$0.isEmpty }.count
        let counters = pass.counters.snapshot()
        #expect(counters.frames == 120 && counters.framesFailedClosed == 0)
        #expect(counters.framesWithFaces >= framesWithFaces)
    }
}
