import Foundation
import Testing

@testable import AllSparkNode

/// Runs `allspark-node anonymize` and reads what it wrote.
enum AnonymizeRun {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try TestFiles.run(TestFiles.nodeExecutable.path, ["anonymize"] + arguments)
    }

    /// One line of a `--boxes` file.
    struct BoxesLine {
        let source: String
        let boxes: [PixelRect]
    }

    static func readBoxes(_ url: URL) throws -> [BoxesLine] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let source = try #require(object["source"].map { "\($0)" })
            let boxes = try #require(object["boxes"] as? [[Int]])
            return BoxesLine(source: source, boxes: try boxes.map { box in
                try #require(box.count == 4)
                return PixelRect(x: box[0], y: box[1], width: box[2], height: box[3])
            })
        }
    }
}

/// An image as packed 8-bit RGB, read by the ffmpeg CLI.
struct RGBImage {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    static func decode(_ path: String) throws -> RGBImage {
        let probe = try TestFiles.run("/usr/bin/ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path,
        ])
        try #require(probe.status == 0, "ffprobe failed on \(path): \(probe.output)")
        let size = probe.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        try #require(size.count == 2)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0 && data.count == size[0] * size[1] * 3, "ffmpeg failed on \(path)")
        return RGBImage(width: size[0], height: size[1], pixels: Array(data))
    }

    func pixel(_ x: Int, _ y: Int) -> ArraySlice<UInt8> {
        let start = (y * width + x) * 3
        return pixels[start..<start + 3]
    }
}

extension TestFrame {
    /// The default detector's boxes in this picture.
    func faces(using detector: any RegionDetector) throws -> [PixelRect] {
        var found: [PixelRect] = []
        try detector.detect(in: frame, appendingTo: &found)
        return found
    }
}

/// The Carphone clip: one face, in most frames.
enum FaceClip {
    static let carphone = TestFiles.shared.appendingPathComponent("faces/video/carphone_qcif.mp4").path

    /// Records an issue for every face still detectable in `output` where `input` showed
    /// one at the same frame index: by the DNN, and by the cascades on the faces both
    /// detectors agree on (alone the cascades also report Carphone's sunlit car window,
    /// 43-50 px at 280,135 of 352x288 in frames 2, 4 and 5, which is no face).
    /// Returns the DNN's input detections.
    @discardableResult
    static func checkNoFaceSurvives(
        input: [TestFrame], output: [TestFrame], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (netInput: [[PixelRect]], cascadeInput: [[PixelRect]]) {
        let net = try FaceNetDetector()
        let netInput = try input.map { try $0.faces(using: net) }
        #expect(netInput.filter { !$0.isEmpty }.count >= input.count * 3 / 4, "the DNN finds the face in most input frames", sourceLocation: sourceLocation)
        let netSurviving = facesSurviving(input: netInput, output: try output.map { try $0.faces(using: net) })
        #expect(netSurviving.isEmpty, "the DNN still finds faces: \(netSurviving.prefix(5))", sourceLocation: sourceLocation)
        let cascades = try CascadeFaceDetector()
        let cascadeInput = try zip(input, netInput).map { picture, netFaces in
            try picture.faces(using: cascades).filter { box in netFaces.contains { $0.intersectionOverUnion(box) >= 0.3 } }
        }
        #expect(cascadeInput.filter { !$0.isEmpty }.count >= input.count / 2, "the cascades agree on the face in half the frames", sourceLocation: sourceLocation)
        let cascadeSurviving = facesSurviving(input: cascadeInput, output: try output.map { try $0.faces(using: cascades) })
        #expect(cascadeSurviving.isEmpty, "the cascades still find faces: \(cascadeSurviving.prefix(5))", sourceLocation: sourceLocation)
        return (netInput, cascadeInput)
    }

    /// Detections in `output` at a face found in `input` at the same frame index (IoU of
    /// 0.3 or more, or the output box's centre inside the input box): a face the input
    /// showed that is still detectable after masking.
    static func facesSurviving(input: [[PixelRect]], output: [[PixelRect]]) -> [(frame: Int, box: PixelRect)] {
        var surviving: [(frame: Int, box: PixelRect)] = []
        for (index, (before, after)) in zip(input, output).enumerated() {
            for box in after where before.contains(where: { face in
                face.intersectionOverUnion(box) >= 0.3 || face.contains(x: box.x + box.width / 2, y: box.y + box.height / 2)
            }) {
                surviving.append((index, box))
            }
        }
        return surviving
    }
}
