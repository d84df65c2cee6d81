import Foundation
import Testing

@testable import AllSparkNode

/// A real face (a dev photo's crop) over a real street scene (vtest.avi), placed where a
/// test says. Each picture carries its index in pixel (0, 0), so that an oracle detector
/// can answer with the true box.
private struct FaceScene {
    static let width = 512
    static let height = 288
    let background: TestFrame
    let face: TestFrame
    /// The labeled face inside `face`.
    let faceBox: PixelRect

    init() throws {
        background = try TestFrame.decode(
            TestFiles.shared.appendingPathComponent("faces/video/vtest.avi").path, filter: "trim=end_frame=1,scale=\(Self.width):\(Self.height)")
        let large = try LargeFace.find()
        let photo = try TestFrame.decode(large.path)
        let crop = large.label.grown(byFractionPerSide: 0.2).clamped(toWidth: photo.width, height: photo.height)
            .alignedToChromaGrid(frameWidth: photo.width, frameHeight: photo.height)
        let scale = 96.0 / Double(crop.width)
        face = try TestFrame.decode(large.path, filter: "crop=\(crop.width):\(crop.height):\(crop.x):\(crop.y),scale=96:-2")
        faceBox = PixelRect(
            x: Int((Double(large.label.x - crop.x) * scale).rounded()), y: Int((Double(large.label.y - crop.y) * scale).rounded()),
            width: Int((Double(large.label.width) * scale).rounded()), height: Int((Double(large.label.height) * scale).rounded()))
    }

    /// Picture `index` with the face's crop at (x, y) (even), or no face.
    func picture(_ index: Int, faceAt origin: (x: Int, y: Int)?) -> TestFrame {
        let picture = TestFrame(width: Self.width, height: Self.height)
        copy(background, to: picture, at: (0, 0))
        if let origin { copy(face, to: picture, at: origin) }
        picture.setLuma(0, 0, UInt8(index))
        return picture
    }

    /// The true face box in a picture with the crop at `origin`.
    func trueBox(at origin: (x: Int, y: Int)) -> PixelRect {
        PixelRect(x: faceBox.x + origin.x, y: faceBox.y + origin.y, width: faceBox.width, height: faceBox.height)
    }

    private func copy(_ source: TestFrame, to target: TestFrame, at origin: (x: Int, y: Int)) {
        let from = source.frame
        let to = target.frame
        for row in 0..<min(from.height, to.height - origin.y) {
            (to.y + (origin.y + row) * to.yStride + origin.x).update(from: from.y + row * from.yStride, count: min(from.width, to.width - origin.x))
        }
        for row in 0..<min(from.chromaHeight, to.chromaHeight - origin.y / 2) {
            let count = min(from.chromaWidth, to.chromaWidth - origin.x / 2)
            (to.u + (origin.y / 2 + row) * to.uStride + origin.x / 2).update(from: from.u + row * from.uStride, count: count)
            (to.v + (origin.y / 2 + row) * to.vStride + origin.x / 2).update(from: from.v + row * from.vStride, count: count)
        }
    }
}

/// Answers with the true face box of the picture it searches (by the index in pixel
/// (0, 0)), slowly, so that searches are several frames apart. `answers` limits how many
/// searches see the face at all: a detector that misses a face from then on.
private final class OracleDetector: RegionDetector, @unchecked Sendable {
    let truth: [Int: PixelRect]
    let delayMs: UInt32
    let answers: Int
    private var searches = 0

    init(truth: [Int: PixelRect], delayMs: UInt32, answers: Int = .max) {
        self.truth = truth
        self.delayMs = delayMs
        self.answers = answers
    }

    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        usleep(delayMs * 1000)
        searches += 1
        guard searches <= answers, let box = truth[Int(frame.y[0])] else { return }
        regions.append(box)
    }
}

/// Pixels inside any of `boxes`, each counted once.
private func maskedPixels(_ boxes: [PixelRect]) -> Int {
    guard let bounds = boxes.first.map({ boxes.reduce($0) { $0.union($1) } }) else { return 0 }
    return Int((coverage(of: bounds, by: boxes) * Double(bounds.area)).rounded())
}

@Suite("Privacy: tracking faces between searches", .serialized)
struct PrivacyTrackingTests {
    private struct Released {
        let index: Int
        let boxes: [PixelRect]
    }

    private func run(
        _ scene: FaceScene, frames: Int, origin: (Int) -> (x: Int, y: Int)?, detector: OracleDetector,
        settings: DelayLineMasker.Settings, frameSpacingMs: Int64, pushEveryUs: UInt32
    ) throws -> (released: [Released], searched: Int) {
        let masker = try DelayLineMasker(
            width: FaceScene.width, height: FaceScene.height, settings: settings, makeDetectors: { [detector] })
        var released: [Released] = []
        let collect = { (frame: MaskedFrame) in
            released.append(Released(index: Int(frame.captureTimeMs / frameSpacingMs), boxes: frame.maskedBoxes))
        }
        for index in 0..<frames {
            let picture = scene.picture(index, faceAt: origin(index))
            try withExtendedLifetime(picture) {
                try masker.push(picture.frame, captureTimeMs: Int64(index) * frameSpacingMs, emit: collect)
            }
            usleep(pushEveryUs)
        }
        try masker.finish(emit: collect)
        return (released, masker.framesSearched)
    }

    @Test("a face moving 6 px a frame is covered in every frame between searches, by a mask that moves with it")
    func trackedMaskFollowsAMovingFace() throws {
        let scene = try FaceScene()
        let origin = { (index: Int) in (x: 16 + 6 * index, y: 30 + 2 * index) }
        var truth: [Int: PixelRect] = [:]
        for index in 0..<48 { truth[index] = scene.trueBox(at: origin(index)) }
        let (released, searched) = try run(
            scene, frames: 48, origin: origin, detector: OracleDetector(truth: truth, delayMs: 150),
            settings: .init(capacity: 16, style: .fill), frameSpacingMs: 33, pushEveryUs: 25_000)

        #expect(released.map(\.index) == Array(0..<48))
        // Most frames must be carried by tracking, not searched. A loaded machine pushes frames
        // late (usleep oversleeps) and so searches more of them: about 8 here when idle, 13
        // seen under load; every other frame still leaves most of the run to tracking.
        #expect(searched <= 24, "searches must be frames apart to test tracking; searched \(searched) of 48")
        for frame in released {
            let face = truth[frame.index]!
            #expect(coverage(of: face, by: frame.boxes) == 1, "frame \(frame.index): face \(face), masks \(frame.boxes)")
            // Carried by measured motion the mask stays close to the face; grown blindly for
            // the motion possible between searches (6 frames) it would be over 4 times its area.
            let maskedArea = maskedPixels(frame.boxes)
            #expect(Double(maskedArea) <= 3.2 * Double(face.area), "frame \(frame.index): \(maskedArea) px masked for a \(face.area) px face \(face): \(frame.boxes)")
        }
    }

    @Test("a face that stays still stays masked long after the detector stops finding it")
    func stillFaceStaysMaskedBeyondTheHold() throws {
        let scene = try FaceScene()
        let origin = (x: 200, y: 80)
        let box = scene.trueBox(at: origin)
        var truth: [Int: PixelRect] = [:]
        for index in 0..<60 { truth[index] = box }
        let (released, _) = try run(
            scene, frames: 60, origin: { _ in origin }, detector: OracleDetector(truth: truth, delayMs: 40, answers: 1),
            settings: .init(capacity: 16, holdMs: 300, style: .fill), frameSpacingMs: 33, pushEveryUs: 10_000)

        #expect(released.count == 60)
        for frame in released {
            #expect(coverage(of: box, by: frame.boxes) == 1, "frame \(frame.index) (\(frame.index * 33) ms, hold 300 ms): masks \(frame.boxes)")
        }
    }

    @Test("once the face is gone and the detector no longer finds it, its mask ends after the hold")
    func maskEndsWhenTheFaceHasLeft() throws {
        let scene = try FaceScene()
        let origin = (x: 200, y: 80)
        let box = scene.trueBox(at: origin)
        var truth: [Int: PixelRect] = [:]
        for index in 0..<20 { truth[index] = box }
        let (released, _) = try run(
            scene, frames: 60, origin: { $0 < 20 ? origin : nil }, detector: OracleDetector(truth: truth, delayMs: 40),
            settings: .init(capacity: 16, holdMs: 300, style: .fill), frameSpacingMs: 33, pushEveryUs: 10_000)

        #expect(released.count == 60)
        for frame in released where frame.index < 20 {
            #expect(coverage(of: box, by: frame.boxes) == 1, "frame \(frame.index): masks \(frame.boxes)")
        }
        // 300 ms of hold is 9 frames; searches a few frames apart end it by frame 40 at the latest.
        for frame in released where frame.index >= 40 {
            #expect(frame.boxes.isEmpty, "frame \(frame.index): the face left at 20, masks \(frame.boxes)")
        }
    }
}
