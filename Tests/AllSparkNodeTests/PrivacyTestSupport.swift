import Foundation
import Testing

@testable import AllSparkNode

/// The labeled FDDB photos in ../shared/faces/dev, read in place (never copied).
struct FaceDataset {
    static let root = TestFiles.shared.appendingPathComponent("faces/dev")

    /// Label boxes by image file name.
    let labels: [String: [PixelRect]]

    init() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("labels.csv"), encoding: .utf8)
        var labels: [String: [PixelRect]] = [:]
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = line.split(separator: ",")
            guard fields.count == 5, let x = Int(fields[1]), let y = Int(fields[2]),
                  let w = Int(fields[3]), let h = Int(fields[4])
            else { continue }
            labels[String(fields[0]), default: []].append(PixelRect(x: x, y: y, width: w, height: h))
        }
        self.labels = labels
    }

    func path(of image: String) -> String {
        Self.root.appendingPathComponent("images").appendingPathComponent(image).path
    }

    /// Images whose labels satisfy `condition`, by name, so every run picks the same ones.
    func images(where condition: ([PixelRect]) -> Bool) -> [String] {
        labels.filter { condition($0.value) }.keys.sorted()
    }
}

/// One YUV 4:2:0 picture in memory the test owns, with padded strides (as libav pads
/// its lines) and a sentinel in the padding to catch writes outside the picture.
final class TestFrame {
    static let padding = 24
    static let sentinel: UInt8 = 0xA5

    let width: Int
    let height: Int
    let yStride: Int
    let chromaStride: Int
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let uOffset: Int
    private let vOffset: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        yStride = width + Self.padding
        chromaStride = (width + 1) / 2 + Self.padding
        uOffset = yStride * height
        vOffset = uOffset + chromaStride * ((height + 1) / 2)
        storage = .allocate(capacity: vOffset + chromaStride * ((height + 1) / 2))
        storage.initialize(repeating: Self.sentinel)
    }

    deinit {
        storage.deallocate()
    }

    var frame: YUV420Frame {
        let base = storage.baseAddress!
        return YUV420Frame(
            width: width, height: height,
            y: base, yStride: yStride,
            u: base + uOffset, uStride: chromaStride,
            v: base + vOffset, vStride: chromaStride)
    }

    var bytes: [UInt8] { Array(storage) }

    func luma(_ x: Int, _ y: Int) -> UInt8 { storage[y * yStride + x] }

    func setLuma(_ x: Int, _ y: Int, _ value: UInt8) { storage[y * yStride + x] = value }

    func setChroma(_ x: Int, _ y: Int, u: UInt8, v: UInt8) {
        storage[uOffset + y * chromaStride + x] = u
        storage[vOffset + y * chromaStride + x] = v
    }

    /// Copies tightly packed yuv420p planes in.
    func load(packed data: Data) {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var source = 0
            func copy(rows: Int, columns: Int, to offset: Int, stride: Int) {
                for row in 0..<rows {
                    for column in 0..<columns {
                        storage[offset + row * stride + column] = raw[source + column]
                    }
                    source += columns
                }
            }
            copy(rows: height, columns: width, to: 0, stride: yStride)
            copy(rows: chromaHeight, columns: chromaWidth, to: uOffset, stride: chromaStride)
            copy(rows: chromaHeight, columns: chromaWidth, to: vOffset, stride: chromaStride)
        }
    }

    /// Bytes that differ from `before` and belong to no pixel inside `boxes` (padding
    /// included). Chroma sample (cx, cy) belongs to luma pixel (2cx, 2cy).
    func changesOutside(_ boxes: [PixelRect], comparedTo before: [UInt8]) -> Int {
        let chromaWidth = (width + 1) / 2
        func inside(_ x: Int, _ y: Int) -> Bool { boxes.contains { $0.contains(x: x, y: y) } }
        var changes = 0
        for index in 0..<storage.count where storage[index] != before[index] {
            let (plane, offset, stride) =
                index < uOffset ? (0, index, yStride)
                : index < vOffset ? (1, index - uOffset, chromaStride) : (2, index - vOffset, chromaStride)
            let row = offset / stride
            let column = offset % stride
            let isPicture = plane == 0 ? column < width : column < chromaWidth
            let owned = plane == 0 ? inside(column, row) : inside(2 * column, 2 * row)
            if !isPicture || !owned {
                changes += 1
            }
        }
        return changes
    }

    /// Sum of |horizontal luma gradient| over `area`: the detail a mask must remove.
    func detailEnergy(in area: PixelRect) -> Int {
        let box = area.clamped(toWidth: width - 1, height: height)
        var energy = 0
        for y in box.y..<box.maxY {
            for x in box.x..<box.maxX {
                energy += abs(Int(luma(x + 1, y)) - Int(luma(x, y)))
            }
        }
        return energy
    }

    /// The share of horizontally adjacent luma pairs in `area` that differ: high in a
    /// photo (grain, edges), at most about 1 / block width in a mosaic.
    func differingPairShare(in area: PixelRect) -> Double {
        let box = area.clamped(toWidth: width - 1, height: height)
        var differing = 0
        for y in box.y..<box.maxY {
            for x in box.x..<box.maxX where luma(x + 1, y) != luma(x, y) {
                differing += 1
            }
        }
        return box.area > 0 ? Double(differing) / Double(box.area) : 0
    }

    /// Reads an image file through the ffmpeg CLI as yuv420p, after an optional filter.
    static func decode(_ path: String, filter: String? = nil) throws -> TestFrame {
        let frames = try decodeVideo(path, filter: filter)
        try #require(frames.count == 1, "\(path) holds \(frames.count) pictures, expected one")
        return frames[0]
    }

    /// Every frame of a video, read through the ffmpeg CLI as yuv420p.
    static func decodeVideo(_ path: String, filter: String? = nil) throws -> [TestFrame] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-i", path] + (filter.map { ["-vf", $0] } ?? [])
            + ["-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg failed on \(path)")
        let newline = UInt8(ascii: "\n")
        let headerEnd = try #require(data.firstIndex(of: newline))
        let fields = String(decoding: data[data.startIndex..<headerEnd], as: UTF8.self).split(separator: " ")
        let width = try #require(fields.first { $0.hasPrefix("W") }.flatMap { Int($0.dropFirst()) })
        let height = try #require(fields.first { $0.hasPrefix("H") }.flatMap { Int($0.dropFirst()) })
        let frameBytes = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        var frames: [TestFrame] = []
        var cursor = headerEnd + 1
        while cursor < data.endIndex {
            let lineEnd = try #require(data[cursor...].firstIndex(of: newline))
            let start = lineEnd + 1
            try #require(start + frameBytes <= data.endIndex, "truncated frame in \(path)")
            let frame = TestFrame(width: width, height: height)
            frame.load(packed: Data(data[start..<start + frameBytes]))
            frames.append(frame)
            cursor = start + frameBytes
        }
        return frames
    }
}

/// How much of `label` the union of `boxes` covers (0...1).
func coverage(of label: PixelRect, by boxes: [PixelRect]) -> Double {
    var covered = 0
    for y in label.y..<label.maxY {
        for x in label.x..<label.maxX where boxes.contains(where: { $0.contains(x: x, y: y) }) {
            covered += 1
        }
    }
    return label.area > 0 ? Double(covered) / Double(label.area) : 0
}

/// A dev image with one large labeled face that the default cascades find, chosen at run
/// time. Finding it is the evaluation's concern; these tests check what masking does.
struct LargeFace: Sendable {
    let path: String
    let label: PixelRect

    static func find() throws -> LargeFace {
        let dataset = try FaceDataset()
        let detector = try CascadeFaceDetector()
        let candidates = dataset.images { $0.count == 1 && $0[0].width >= 100 }
        for image in candidates.prefix(20) {
            let label = dataset.labels[image]![0]
            let path = dataset.path(of: image)
            let picture = try TestFrame.decode(path)
            var found: [PixelRect] = []
            try detector.detect(in: picture.frame, appendingTo: &found)
            if found.contains(where: { $0.intersectionOverUnion(label) >= 0.3 }) {
                return LargeFace(path: path, label: label)
            }
        }
        throw PrivacyError.detectionFailed("no large face found in the first 20 candidates")
    }
}

/// A picture with no face: fine diagonal stripes, detail that masking visibly destroys.
func stripedFrame(width: Int, height: Int) -> TestFrame {
    let picture = TestFrame(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            picture.setLuma(x, y, (x + 2 * y) % 3 == 0 ? 200 : 60)
        }
    }
    for y in 0..<(height + 1) / 2 {
        for x in 0..<(width + 1) / 2 {
            picture.setChroma(x, y, u: UInt8(64 + x % 128), v: UInt8(64 + y % 128))
        }
    }
    return picture
}

/// A picture of grey squares of random shades (6 px, the same in every call), moved
/// `shiftX` px to the right: texture that optical flow follows.
func texturedFrame(width: Int, height: Int, shiftX: Int = 0) -> TestFrame {
    let picture = TestFrame(width: width, height: height)
    for y in 0..<height {
        for x in 0..<width {
            var hash = UInt32(truncatingIfNeeded: ((x - shiftX + 6000) / 6) &* 73_856_093 ^ (y / 6) &* 19_349_663)
            hash = (hash ^ (hash >> 13)) &* 1_274_126_177
            picture.setLuma(x, y, UInt8(40 + (hash >> 8) % 180))
        }
    }
    for y in 0..<(height + 1) / 2 {
        for x in 0..<(width + 1) / 2 { picture.setChroma(x, y, u: 128, v: 128) }
    }
    return picture
}

/// Frames held by a test instead of a delay line, numbered from 0: their tracking
/// thumbnails (made as the delay line makes them) and capture times, and the face boxes
/// added to each.
final class TestHeldFrames: HeldFrames {
    private var thumbnails: [LumaThumbnail] = []
    private var captureTimes: [Int64] = []
    private(set) var boxes: [[TrackedBox]] = []
    var oldest = 0
    var newest: Int { thumbnails.count - 1 }
    private let scaler: GreyScaler

    init() throws {
        scaler = try GreyScaler(finish: .bilinear)
    }

    /// Holds `picture` as the newest frame; returns its number.
    @discardableResult
    func push(_ picture: TestFrame, captureTimeMs: Int64) throws -> Int {
        let thumbnail = try LumaThumbnail(maxWidth: 480)
        let flow = BoxFlow.Settings()
        try thumbnail.update(from: picture.frame, scaler: scaler, window: flow.window, levels: flow.levels)
        thumbnails.append(thumbnail)
        captureTimes.append(captureTimeMs)
        boxes.append([])
        return newest
    }

    func thumbnail(of number: Int) -> LumaThumbnail { thumbnails[number] }
    func captureTimeMs(of number: Int) -> Int64 { captureTimes[number] }
    func add(_ face: TrackedBox, to number: Int) { boxes[number].append(face) }
}
