import Foundation
import Testing

@testable import AllSparkNode

/// Real dev faces pasted into a busy street (vtest.avi enlarged and panned, so every part of
/// the picture changes every frame) at known places mid-picture, appearing all at once in
/// frame N, through the recorder's privacy pass at its defaults for a camera at 30 fps.
/// Judged against the boxes the test placed, pixel by pixel, not against a detector: a
/// frame where the net misses the face is still checked (issue 60).
@Suite("Privacy: faces at known boxes", .serialized)
struct PrivacyKnownBoxTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let width: Int
        let height: Int
        /// Face widths (label box, frame pixels) and where each label box's left top goes.
        let faces: [(width: Int, x: Int, y: Int)]
        let appearsAt: Int

        var testDescription: String { "\(width)x\(height), faces \(faces.map(\.width)) px from frame \(appearsAt)" }
    }

    /// At 1080p the faces sit where only one edge window holds them, and are small enough
    /// that a whole frame shrunk to 640 px does not show them to the net (before issue 60's
    /// fix they were shown in their first frames); at 720p they are 40-64 px.
    static let cases = [
        Case(width: 1920, height: 1080, faces: [(56, 300, 200), (72, 1500, 780)], appearsAt: 9),
        Case(width: 1920, height: 1080, faces: [(64, 1400, 240), (96, 420, 700)], appearsAt: 14),
        Case(width: 1280, height: 720, faces: [(40, 200, 140), (64, 980, 480)], appearsAt: 9),
        Case(width: 1280, height: 720, faces: [(48, 860, 160), (56, 300, 470)], appearsAt: 14),
    ]

    @Test("every frame from the one a face appears in leaves with its known box masked", arguments: cases)
    func knownBoxesAreMasked(_ test: Case) throws {
        let frameCount = test.appearsAt + 24
        let street = try Self.pannedStreet(width: test.width, height: test.height, frames: frameCount)
        try #require(street.count == frameCount)
        let faces = try Self.faceCrops(widths: test.faces.map(\.width))
        let input = street.enumerated().map { index, picture in
            index < test.appearsAt ? picture : TestFrame(copying: picture.frame)
        }
        var known: [PixelRect] = []
        for (face, place) in zip(faces, test.faces) {
            for index in test.appearsAt..<frameCount { input[index].paste(face.picture, atX: place.x - face.label.x, y: place.y - face.label.y) }
            known.append(PixelRect(x: place.x, y: place.y, width: face.label.width, height: face.label.height))
        }
        // The faces are ones the net finds at half scale, the coarsest the node promises to
        // search at: in a 1280x720 part of the frame around each, searched at 640x352.
        let net = try FaceNetDetector()
        for box in known {
            let around = PixelRect(
                x: min(max(0, box.x + box.width / 2 - 640), test.width - 1280),
                y: min(max(0, box.y + box.height / 2 - 360), test.height - 720), width: 1280, height: 720)
            var seen: [PixelRect] = []
            try net.detect(in: input[test.appearsAt].frame, within: around, scale: 0.5, appendingTo: &seen)
            try #require(seen.contains { $0.intersectionOverUnion(box) >= 0.3 }, "the net at half scale finds the face at \(box): \(seen)")
        }

        try Self.expectMasked(input, width: test.width, height: test.height) { number in number >= test.appearsAt ? known : [] }
    }

    /// A face turning towards the camera mid-picture at 1080p (the bench's "turning from
    /// profile" kind, issue 60): it comes in a quarter as wide as it will be and widens over
    /// five frames. The net misses it at first and finds it frames later; the delay line's
    /// lookback holds those first frames until a search finds it, which masks it back into
    /// them. Before the lookback's default of 60 ms, such first frames left unmasked.
    @Test("a face turning in mid-picture at 1080p leaves masked from its first frame")
    func turningFaceIsMaskedFromItsFirstFrame() throws {
        let (width, height, appearsAt) = (1920, 1080, 9)
        let frameCount = appearsAt + 18
        let street = try Self.pannedStreet(width: width, height: height, frames: frameCount)
        let shares = [0.25, 0.4, 0.55, 0.7, 0.85, 1.0]
        let turns = try Self.turningFace(width: 88, shares: shares)
        // Where only one edge window holds it; each step centred on the same place.
        let (centreX, top) = (1440, 240)
        let net = try FaceNetDetector()
        let around = PixelRect(x: width - 1280, y: 0, width: 1280, height: 720)
        func placed(_ step: Int) -> PixelRect {
            let label = turns[step].label
            return PixelRect(x: (centreX - label.width / 2) & ~1, y: top, width: label.width, height: label.height)
        }
        let input = street.enumerated().map { index, picture in
            guard index >= appearsAt else { return picture }
            let step = min(index - appearsAt, shares.count - 1)
            let copy = TestFrame(copying: picture.frame)
            let box = placed(step)
            copy.paste(turns[step].picture, atX: box.x - turns[step].label.x, y: box.y - turns[step].label.y)
            return copy
        }
        // What makes it a late find: the net at half scale misses the face in its first
        // frame and finds it once it has turned.
        for (step, expected) in [(0, false), (shares.count - 1, true)] {
            var seen: [PixelRect] = []
            try net.detect(in: input[appearsAt + step].frame, within: around, scale: 0.5, appendingTo: &seen)
            try #require(
                seen.contains { $0.intersectionOverUnion(placed(step)) >= 0.3 } == expected,
                "the net at half scale \(expected ? "finds" : "misses") the face at \(shares[step]) of its width: \(seen)")
        }
        try Self.expectMasked(input, width: width, height: height) { number in
            number >= appearsAt ? [placed(min(number - appearsAt, shares.count - 1))] : []
        }
    }

    /// Pushes `input` through the recorder's privacy pass at its defaults, paced as a camera
    /// at 30 fps, and expects each frame to leave with every box `known(frame)` masked.
    static func expectMasked(_ input: [TestFrame], width: Int, height: Int, known: (Int) -> [PixelRect]) throws {
        let pass = try PrivacyPass(
            detectors: DetectorSetup(mode: .face), delayLine: DelayLineMasker.Settings(fps: 30, realTimeSource: true),
            logger: .init(label: "test"))
        let masker = try #require(try pass.makeMasker(width, height) as? DelayLineMasker)
        var shown: [(frame: Int, box: PixelRect, unchanged: Double)] = []
        var released = 0
        let check = { (frame: MaskedFrame) in
            let number = released
            released += 1
            for box in known(number) {
                let unchanged = input[number].unchangedShare(in: box, of: frame.picture)
                if unchanged >= Self.shownShare { shown.append((number, box, unchanged)) }
            }
        }
        let start = ContinuousClock.now
        for index in 0..<input.count {
            try masker.push(input[index].frame, captureTimeMs: Int64(index) * 33, emit: check)
            // Paced as a camera: the next frame 33 ms after this one's capture.
            let next = start + .milliseconds(33 * (index + 1))
            let wait = (next - .now).components
            if wait.seconds >= 0, wait.attoseconds > 0 { Thread.sleep(forTimeInterval: Double(wait.seconds) + Double(wait.attoseconds) / 1e18) }
        }
        try masker.finish(emit: check)

        #expect(released == input.count)
        #expect(shown.isEmpty, "known boxes shown (frame, box, share of the box's pixels unchanged): \(shown)")
    }

    /// A box counts as shown when half its pixels or more leave as they came in (a mask
    /// covering less than half of the face's box does not hold it: the dev data's rule).
    static let shownShare = 0.5

    /// vtest.avi (a fixed street, people walking) enlarged to 1.25 times the frame's width
    /// and panned 6 px a frame: a busy scene in which every block changes every frame.
    static func pannedStreet(width: Int, height: Int, frames: Int) throws -> [TestFrame] {
        let scaledWidth = width * 5 / 4 & ~1
        let scaledHeight = scaledWidth * 3 / 4 & ~1
        let path = TestFiles.shared.appendingPathComponent("faces/video/vtest.avi").path
        return try TestFrame.decodeVideo(
            path,
            filter: "trim=end_frame=\(frames),scale=\(scaledWidth):\(scaledHeight),"
                + "crop=\(width):\(height):'min(n*6,\(scaledWidth - width))':\((scaledHeight - height) / 2 & ~1)")
    }

    /// Dev photos with one labelled face each, the face (and a quarter of its size around it)
    /// cut out and scaled so the label box is `widths[i]` wide; `label` is the box in the crop.
    static func faceCrops(widths: [Int]) throws -> [(picture: TestFrame, label: PixelRect)] {
        let dataset = try FaceDataset()
        let chosen = try PrivacyEdgeTests.wholeFaces(count: widths.count, dataset: dataset)
        try #require(chosen.count == widths.count)
        return try zip(chosen, widths).map { face, width in try crop(face, of: dataset, width: width) }
    }

    /// One dev face as `faceCrops` cuts it, squeezed across to each of `shares` of its width
    /// (a head turning from profile, as bench/moving_faces.py's `--appearing` draws it).
    static func turningFace(width: Int, shares: [Double]) throws -> [(picture: TestFrame, label: PixelRect)] {
        let dataset = try FaceDataset()
        let face = try #require(try PrivacyEdgeTests.wholeFaces(count: 1, dataset: dataset).first)
        return try shares.map { share in try crop(face, of: dataset, width: width, squeeze: share) }
    }

    static func crop(
        _ face: (image: String, label: PixelRect), of dataset: FaceDataset, width: Int, squeeze: Double = 1
    ) throws -> (picture: TestFrame, label: PixelRect) {
        let (image, label) = face
        let size = try TestFrame.decode(dataset.path(of: image))
        let margin = label.width / 4
        let crop = PixelRect(x: label.x - margin, y: label.y - margin, width: label.width + 2 * margin, height: label.height + 2 * margin)
            .clamped(toWidth: size.width, height: size.height)
        let scale = Double(width) / Double(label.width)
        let cropWidth = Int((Double(crop.width) * scale * squeeze).rounded()) & ~1
        let cropHeight = Int((Double(crop.height) * scale).rounded()) & ~1
        let picture = try TestFrame.decode(
            dataset.path(of: image),
            filter: "crop=\(crop.width):\(crop.height):\(crop.x):\(crop.y),scale=\(cropWidth):\(cropHeight)")
        let box = PixelRect(
            x: Int((Double(label.x - crop.x) * scale * squeeze).rounded()) & ~1, y: Int((Double(label.y - crop.y) * scale).rounded()) & ~1,
            width: Int((Double(width) * squeeze).rounded()), height: Int((Double(label.height) * scale).rounded()))
        return (picture, box)
    }
}

extension TestFrame {
    /// Pastes `picture` with its left top at (`x`, `y`) (even), cut to this picture.
    func paste(_ picture: TestFrame, atX x: Int, y: Int) {
        let (source, target) = (picture.frame, frame)
        for row in 0..<picture.height where y + row >= 0 && y + row < height {
            for column in 0..<picture.width where x + column >= 0 && x + column < width {
                target.y[(y + row) * target.yStride + x + column] = source.y[row * source.yStride + column]
            }
        }
        for row in 0..<picture.height / 2 where y / 2 + row >= 0 && y / 2 + row < height / 2 {
            for column in 0..<picture.width / 2 where x / 2 + column >= 0 && x / 2 + column < width / 2 {
                target.u[(y / 2 + row) * target.uStride + x / 2 + column] = source.u[row * source.uStride + column]
                target.v[(y / 2 + row) * target.vStride + x / 2 + column] = source.v[row * source.vStride + column]
            }
        }
    }

    /// The share of `box`'s luma pixels (cut to the picture) that `output` has as this
    /// picture has them: 1 for a box left as it came in, near 0 under a mosaic or a fill.
    func unchangedShare(in box: PixelRect, of output: YUV420Frame) -> Double {
        let area = box.clamped(toWidth: width, height: height)
        guard area.area > 0 else { return 0 }
        let source = frame
        var same = 0
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX where source.y[y * source.yStride + x] == output.y[y * output.yStride + x] {
                same += 1
            }
        }
        return Double(same) / Double(area.area)
    }
}
