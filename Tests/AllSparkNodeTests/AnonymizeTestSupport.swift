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

    /// Records an issue for every frame of `output` that shows a face where it is known to
    /// be in `input` (`known`, one list per frame; by default `knownBoxes(in:)`): judged on
    /// the pixels (`faceShown`), not by a detector run on the output, so a frame where a
    /// detector misses the face is checked too. Returns the input's detections the default
    /// known boxes were read from.
    @discardableResult
    static func checkNoFaceSurvives(
        input: [TestFrame], output: [TestFrame], known: [[PixelRect]]? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (netInput: [[PixelRect]], cascadeInput: [[PixelRect]]) {
        let found: (netInput: [[PixelRect]], cascadeInput: [[PixelRect]]) = known == nil ? try inputDetections(input) : ([], [])
        if known == nil {
            #expect(found.netInput.filter { !$0.isEmpty }.count >= input.count * 3 / 4, "the DNN finds the face in most input frames", sourceLocation: sourceLocation)
        }
        let known = known ?? knownBoxes(from: found.netInput, cascades: found.cascadeInput)
        try #require(known.count == input.count && output.count == input.count, sourceLocation: sourceLocation)
        var shown: [(frame: Int, box: PixelRect, score: Double)] = []
        for (index, boxes) in known.enumerated() {
            for box in boxes {
                let score = faceShown(box, input: input[index], output: output[index])
                if score >= shownScore { shown.append((index, box, score)) }
            }
        }
        #expect(shown.isEmpty, "faces shown at their known boxes (frame, box, score): \(shown.prefix(8))", sourceLocation: sourceLocation)
        return found
    }

    /// The net's boxes in each input frame, and the cascades' that agree with the net's (alone
    /// the cascades also report Carphone's sunlit car window, which is no face).
    static func inputDetections(_ input: [TestFrame]) throws -> (netInput: [[PixelRect]], cascadeInput: [[PixelRect]]) {
        let net = try FaceNetDetector()
        let netInput = try input.map { try $0.faces(using: net) }
        let cascades = try CascadeFaceDetector()
        let cascadeInput = try zip(input, netInput).map { picture, netFaces in
            try picture.faces(using: cascades).filter { box in netFaces.contains { $0.intersectionOverUnion(box) >= 0.3 } }
        }
        return (netInput, cascadeInput)
    }

    /// Where a one-face clip's face is in each frame, read from the input alone: the union
    /// of what the net and the cascades found there, and in a frame where neither found it,
    /// the box of the nearest frame where one did (Carphone's face is in every frame).
    static func knownBoxes(from net: [[PixelRect]], cascades: [[PixelRect]]) -> [[PixelRect]] {
        let found = zip(net, cascades).map { netFaces, cascadeFaces in
            (netFaces + cascadeFaces).reduce(nil as PixelRect?) { sofar, box in sofar.map { $0.union(box) } ?? box }
        }
        let frames = found.indices.filter { found[$0] != nil }
        return found.indices.map { index in
            guard let nearest = frames.min(by: { abs($0 - index) < abs($1 - index) }) else { return [] }
            return [found[nearest]!]
        }
    }

    /// A box counts as shown from this `faceShown` score up.
    static let shownScore = 0.5

    /// How much of the face at `box` `output` still shows: the correlation of the input's
    /// and the output's luma gradients (right and down) inside the box. A face left as it
    /// came in scores near 1, through a video encoder too; under a mosaic the gradients are 0
    /// inside each cell and the score falls near 0; half a box masked scores about a half.
    static func faceShown(_ box: PixelRect, input: TestFrame, output: TestFrame) -> Double {
        let area = box.clamped(toWidth: min(input.width, output.width) - 1, height: min(input.height, output.height) - 1)
        guard area.width > 1, area.height > 1 else { return 0 }
        var (sumA, sumB, sumAA, sumBB, sumAB, count) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX {
                let (inputHere, outputHere) = (Int(input.luma(x, y)), Int(output.luma(x, y)))
                for (a, b) in [
                    (Double(Int(input.luma(x + 1, y)) - inputHere), Double(Int(output.luma(x + 1, y)) - outputHere)),
                    (Double(Int(input.luma(x, y + 1)) - inputHere), Double(Int(output.luma(x, y + 1)) - outputHere)),
                ] {
                    sumA += a
                    sumB += b
                    sumAA += a * a
                    sumBB += b * b
                    sumAB += a * b
                    count += 1
                }
            }
        }
        let covariance = sumAB / count - sumA / count * sumB / count
        let varianceA = sumAA / count - sumA / count * sumA / count
        let varianceB = sumBB / count - sumB / count * sumB / count
        guard varianceA > 0, varianceB > 0 else { return 0 }
        return covariance / (varianceA * varianceB).squareRoot()
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
