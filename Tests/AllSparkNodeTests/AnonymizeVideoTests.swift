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

    @Test("a clip with dev faces at known boxes (one walking, one popping up mid-picture): every known box leaves masked")
    func knownFacesAreMasked() throws {
        let directory = try TestFiles.makeDirectory("anonymize-known")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (width, height, frameCount) = (1280, 720, 45)
        let street = try PrivacyKnownBoxTests.pannedStreet(width: width, height: height, frames: frameCount)
        try #require(street.count == frameCount)
        let faces = try PrivacyKnownBoxTests.faceCrops(widths: [64, 88])
        var known: [[PixelRect]] = []
        let input = street.enumerated().map { index, background in
            let picture = TestFrame(copying: background.frame)
            var boxes: [PixelRect] = []
            // One walks in from the left at 8 px a frame; the other is there from frame 15 on.
            let places = [(face: faces[0], x: 40 + 8 * index, y: 300, from: 0), (face: faces[1], x: 700, y: 180, from: 15)]
            for place in places where index >= place.from {
                picture.paste(place.face.picture, atX: place.x - place.face.label.x, y: place.y - place.face.label.y)
                boxes.append(PixelRect(x: place.x, y: place.y, width: place.face.label.width, height: place.face.label.height))
            }
            known.append(boxes)
            return picture
        }
        let clip = directory.appendingPathComponent("known.mkv")
        try input.writeLossless(to: clip, in: directory)
        let output = directory.appendingPathComponent("masked.mp4")

        let result = try AnonymizeRun.run([clip.path, output.path])

        try #require(result.status == 0, "\(result.output)")
        let outputFrames = try TestFrame.decodeVideo(output.path)
        try #require(outputFrames.count == frameCount)
        // The oracle reads the pixels: the same boxes left unmasked score as shown.
        #expect(known.indices.allSatisfy { index in
            known[index].allSatisfy { FaceClip.faceShown($0, input: input[index], output: input[index]) >= FaceClip.shownScore }
        })
        try FaceClip.checkNoFaceSurvives(input: input, output: outputFrames, known: known)
    }
}

extension [TestFrame] {
    /// Writes the frames as a 30 fps FFV1 clip (lossless), through a raw yuv420p file in `directory`.
    func writeLossless(to url: URL, in directory: URL) throws {
        guard let first else { return }
        var data = Data()
        for picture in self {
            let frame = picture.frame
            for row in 0..<frame.height { data.append(frame.y + row * frame.yStride, count: frame.width) }
            for row in 0..<frame.chromaHeight { data.append(frame.u + row * frame.uStride, count: frame.chromaWidth) }
            for row in 0..<frame.chromaHeight { data.append(frame.v + row * frame.vStride, count: frame.chromaWidth) }
        }
        let raw = directory.appendingPathComponent("frames.yuv")
        try data.write(to: raw)
        let made = try TestFiles.run("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(first.width)x\(first.height)", "-r", "30",
            "-i", raw.path, "-c:v", "ffv1", url.path,
        ])
        try #require(made.status == 0, "\(made.output)")
    }
}
