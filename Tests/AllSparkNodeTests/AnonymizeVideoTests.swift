import Foundation
import Testing

@testable import AllSparkNode

@Suite("anonymize: video", .serialized)
struct AnonymizeVideoTests {
    @Test("Carphone: no face the input showed is detectable in the output; one boxes line per frame")
    func carphoneFacesAreGone() throws {
        let directory = try TestFiles.makeDirectory("anonymize-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("masked.mp4")
        let boxesFile = directory.appendingPathComponent("boxes.jsonl")

        let result = try AnonymizeRun.run([FaceClip.carphone, output.path, "--boxes", boxesFile.path])

        try #require(result.status == 0, "\(result.output)")
        let detector = try CascadeFaceDetector()
        let inputFrames = try TestFrame.decodeVideo(FaceClip.carphone)
        let outputFrames = try TestFrame.decodeVideo(output.path)
        try #require(inputFrames.count == 120)
        #expect(outputFrames.count == inputFrames.count)
        #expect(outputFrames.first.map { ($0.width, $0.height) } ?? (0, 0) == (176, 144))
        let lines = try AnonymizeRun.readBoxes(boxesFile)
        #expect(lines.map(\.source) == (0..<120).map(String.init))

        let inputFaces = try inputFrames.map { try $0.faces(using: detector) }
        let outputFaces = try outputFrames.map { try $0.faces(using: detector) }
        let framesWithFaces = inputFaces.filter { !$0.isEmpty }.count
        #expect(framesWithFaces >= 60, "the detector should find the face in most input frames, found \(framesWithFaces)")
        let surviving = FaceClip.facesSurviving(input: inputFaces, output: outputFaces)
        #expect(surviving.isEmpty, "faces still detectable after masking: \(surviving.prefix(5))")
        // Every input detection lies inside that frame's logged boxes.
        for (faces, line) in zip(inputFaces, lines) {
            for face in faces {
                #expect(coverage(of: face, by: line.boxes) >= 0.95, "face \(face) vs boxes \(line.boxes)")
            }
        }
    }

    @Test("an odd-sized video is padded by one column and row; boxes stay in the input's coordinates")
    func oddSizedVideoIsPadded() throws {
        let directory = try TestFiles.makeDirectory("anonymize-odd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("odd.mkv")
        let made = try TestFiles.run("/usr/bin/ffmpeg", [
            "-v", "error", "-i", FaceClip.carphone, "-vf", "format=yuv444p,crop=175:143:0:0", "-frames:v", "20",
            "-c:v", "ffv1", "-pix_fmt", "yuv444p", input.path,
        ])
        try #require(made.status == 0, "\(made.output)")
        let output = directory.appendingPathComponent("masked.mov")
        let boxesFile = directory.appendingPathComponent("boxes.jsonl")

        let result = try AnonymizeRun.run([input.path, output.path, "--boxes", boxesFile.path])

        try #require(result.status == 0, "\(result.output)")
        let frames = try TestFrame.decodeVideo(output.path)
        #expect(frames.count == 20)
        #expect(frames.first.map { ($0.width, $0.height) } ?? (0, 0) == (176, 144))
        let lines = try AnonymizeRun.readBoxes(boxesFile)
        #expect(lines.count == 20)
        #expect(lines.flatMap(\.boxes).allSatisfy { $0.maxX <= 175 && $0.maxY <= 143 })
        #expect(lines.contains { !$0.boxes.isEmpty }, "the face should be masked in some frames")
    }
}
