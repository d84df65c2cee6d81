import Foundation
import Synchronization
import Testing

@testable import AllSparkNode

/// Finds the one bright square (luma 250) a test draws, slowly, as a cascade would be slow.
private final class SlowSquareDetector: RegionDetector {
    let delayMs: UInt32
    init(delayMs: UInt32) { self.delayMs = delayMs }

    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        usleep(delayMs * 1000)
        var found: PixelRect?
        for y in 0..<frame.height {
            for x in 0..<frame.width where frame.y[y * frame.yStride + x] == 250 {
                let pixel = PixelRect(x: x, y: y, width: 1, height: 1)
                found = found.map { $0.union(pixel) } ?? pixel
            }
        }
        if let found { regions.append(found) }
    }
}

/// A real face detector made slower, so that detection cannot search every frame.
private final class SlowFaceDetector: RegionDetector {
    let detector: any RegionDetector
    let delayMs: UInt32
    init(delayMs: UInt32, detector: any RegionDetector) {
        self.detector = detector
        self.delayMs = delayMs
    }

    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        usleep(delayMs * 1000)
        try detector.detect(in: frame, appendingTo: &regions)
    }
}

/// Finds nothing in two of every three frames it searches, as a cascade misses a real face now and then.
private final class FlickeringSquareDetector: RegionDetector {
    let square = SlowSquareDetector(delayMs: 15)
    private(set) var searches = 0

    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        searches += 1
        guard searches % 3 == 1 else { return }
        try square.detect(in: frame, appendingTo: &regions)
    }
}

private final class FailingDetector: RegionDetector {
    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        throw .detectionFailed("test failure")
    }
}

/// The frame number a test codes into the top-left pixel's luma.
private func frameNumber(in frame: YUV420Frame) -> Int { Int(frame.y[0]) }

/// Finds the square only in frames numbered `firstFound` or later, as a detector finds a
/// face only once it has turned towards the camera.
private final class LateSquareDetector: RegionDetector {
    let square = SlowSquareDetector(delayMs: 10)
    let firstFound: Int
    init(firstFound: Int) { self.firstFound = firstFound }

    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        guard frameNumber(in: frame) >= firstFound else { return }
        try square.detect(in: frame, appendingTo: &regions)
    }
}

/// Which frame numbers a detector has finished searching, readable from the test's thread.
private final class SearchLog: Sendable {
    private let searched = Mutex<[Int]>([])
    func add(_ number: Int) { searched.withLock { $0.append(number) } }
    var newest: Int { searched.withLock { $0.max() ?? -1 } }
    var all: [Int] { searched.withLock { $0 } }
}

/// A detector made slow on purpose (100 ms a search) that logs each frame it has searched.
private final class LoggingSlowDetector: RegionDetector {
    let log: SearchLog
    init(log: SearchLog) { self.log = log }

    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        usleep(100_000)
        log.add(frameNumber(in: frame))
    }
}

extension TestFrame {
    convenience init(copying picture: YUV420Frame) {
        self.init(width: picture.width, height: picture.height)
        let target = frame
        for row in 0..<picture.height {
            (target.y + row * target.yStride).update(from: picture.y + row * picture.yStride, count: picture.width)
        }
        for row in 0..<picture.chromaHeight {
            (target.u + row * target.uStride).update(from: picture.u + row * picture.uStride, count: picture.chromaWidth)
            (target.v + row * target.vStride).update(from: picture.v + row * picture.vStride, count: picture.chromaWidth)
        }
    }
}

@Suite("Privacy: delay line with sampled detection", .serialized)
struct PrivacyDelayLineTests {
    /// A textured picture with a 20x20 square of luma 250 at `squareX`, if `squareX` is set.
    private func frame(squareX: Int?) -> TestFrame {
        let picture = stripedFrame(width: 160, height: 120)
        guard let squareX else { return picture }
        for y in 50..<70 {
            for x in squareX..<squareX + 20 { picture.setLuma(x, y, 250) }
        }
        return picture
    }

    /// The square appears at frame 37, most likely between two samples: only the lookahead
    /// (the next sample's boxes) can mask it from its first frame.
    static let squareAppears = 37

    private func squareX(at index: Int) -> Int? { index >= Self.squareAppears ? 10 + index : nil }

    @Test("a moving square found only in sampled frames is masked in every frame; nothing else changes")
    func sampledDetectionMasksEveryFrame() throws {
        let masker = try DelayLineMasker(
            // Fill, not pixelate: a mosaic of a flat square would keep its flat inside.
            // Searches far slower than pushes, so that even a busy machine samples.
            width: 160, height: 120, settings: .init(capacity: 16, style: .fill),
            makeDetectors: { [SlowSquareDetector(delayMs: 60)] })
        var released: [(captureMs: Int64, picture: TestFrame, boxes: [PixelRect])] = []
        let collect = { (frame: MaskedFrame) in
            released.append((frame.captureTimeMs, TestFrame(copying: frame.picture), frame.maskedBoxes))
        }
        for index in 0..<90 {
            let picture = frame(squareX: squareX(at: index))
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index), emit: collect) }
            usleep(5000)
        }
        try masker.finish(emit: collect)

        #expect(released.map(\.captureMs) == (0..<90).map(Int64.init), "every frame leaves once, in order")
        #expect(masker.framesSearched < 45, "detection was sampled, searched \(masker.framesSearched) of 90")
        #expect(masker.framesSearched >= 5)
        for (index, output) in released.enumerated() {
            let input = frame(squareX: squareX(at: index))
            #expect(output.picture.changesOutside(output.boxes, comparedTo: input.bytes) == 0, "frame \(index)")
            guard let x = squareX(at: index) else { continue }
            let square = PixelRect(x: x, y: 50, width: 20, height: 20)
            #expect(coverage(of: square, by: output.boxes) == 1, "frame \(index): square \(square), boxes \(output.boxes)")
            #expect(output.picture.luma(square.x + 10, square.y + 10) == MaskPainter.fillLuma, "frame \(index) still shows the square")
        }
        #expect(masker.counters.snapshot().frames == 90)
    }

    @Test("thumbnails are made only for the frames held at once, and the newest and last whole-searched ones read after they leave")
    func thumbnailsOnlyForFramesHeld() throws {
        let masker = try DelayLineMasker(
            width: 160, height: 120, settings: .init(capacity: 16, style: .fill, lookbackMs: 0),
            makeDetectors: { [SlowSquareDetector(delayMs: 5)] })
        var released = 0
        for index in 0..<90 {
            let picture = frame(squareX: squareX(at: index))
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: { _ in released += 1 }) }
            usleep(20_000)
        }
        try masker.finish(emit: { _ in released += 1 })
        #expect(released == 90)
        // One thumbnail per slot (16) before they were lent; the pictures count the frames held at once.
        #expect(masker.thumbnailsMade <= masker.picturesMade + 2, "\(masker.thumbnailsMade) thumbnails, \(masker.picturesMade) pictures")
    }

    @Test("a square missed by two searches in three stays masked; its mask ends a hold after it leaves")
    func missedSamplesAreBridgedByTheHold() throws {
        let holdMs: Int64 = 400
        let masker = try DelayLineMasker(
            // This detector misses by count, not by what it sees: every search must run it,
            // where a still square would otherwise be searched once (PrivacyChangedSearchTests).
            width: 160, height: 120, settings: .init(capacity: 16, holdMs: holdMs, style: .fill, searchesChangedRegions: false),
            makeDetectors: { [FlickeringSquareDetector()] })
        var released: [(captureMs: Int64, boxes: [PixelRect])] = []
        let collect = { (frame: MaskedFrame) in released.append((frame.captureTimeMs, frame.maskedBoxes)) }
        let square = PixelRect(x: 60, y: 50, width: 20, height: 20)
        for index in 0..<120 {
            let picture = frame(squareX: index < 60 ? square.x : nil)
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect) }
            usleep(5000)
        }
        try masker.finish(emit: collect)

        try #require(released.count == 120)
        #expect(masker.framesSearched >= 10)
        for (index, output) in released.enumerated() where index < 60 {
            #expect(coverage(of: square, by: output.boxes) == 1, "frame \(index): boxes \(output.boxes)")
        }
        // Gone at frame 60 (1980 ms): masked at most the hold plus one search interval after.
        let lastMasked = released.lastIndex { !$0.boxes.isEmpty } ?? 0
        #expect(lastMasked >= 60)
        #expect(released[lastMasked].captureMs <= 1980 + holdMs + 200, "masked until frame \(lastMasked)")
    }

    @Test("detection that fails masks the whole frame (fail closed)")
    func failedDetectionMasksEverything() throws {
        let masker = try DelayLineMasker(
            width: 160, height: 120, settings: .init(capacity: 4, style: .fill), makeDetectors: { [FailingDetector()] })
        var released: [TestFrame] = []
        let collect = { (frame: MaskedFrame) in released.append(TestFrame(copying: frame.picture)) }
        for index in 0..<10 {
            let picture = frame(squareX: index)
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index), emit: collect) }
        }
        try masker.finish(emit: collect)

        #expect(released.count == 10)
        for picture in released {
            #expect(picture.detailEnergy(in: PixelRect(x: 0, y: 0, width: 160, height: 120)) == 0)
            #expect(picture.luma(80, 60) == MaskPainter.fillLuma)
        }
    }

    @Test("a missing cascade stops it from being created")
    func missingCascadeFailsClosed() throws {
        let settings = FaceDetectionSettings(cascadeDirectory: "/nonexistent-cascades")
        #expect(throws: PrivacyError.self) {
            _ = try DelayLineMasker(width: 160, height: 120, makeDetectors: { [try CascadeFaceDetector(settings: settings)] })
        }
    }

    @Test("Carphone at 30 fps with a detector too slow for every frame: no face the input showed survives")
    func carphoneWithSampledDetection() throws {
        let input = try TestFrame.decodeVideo(FaceClip.carphone, filter: "scale=352:288")
        let masker = try DelayLineMasker(
            width: 352, height: 288, settings: .init(capacity: 24),
            makeDetectors: { [SlowFaceDetector(delayMs: 80, detector: try FaceNetDetector())] })
        var released: [TestFrame] = []
        let collect = { (frame: MaskedFrame) in released.append(TestFrame(copying: frame.picture)) }
        for (index, picture) in input.enumerated() {
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect) }
            usleep(33_000)
        }
        try masker.finish(emit: collect)

        try #require(released.count == input.count)
        #expect(masker.framesSearched < input.count / 2, "searched \(masker.framesSearched) of \(input.count)")
        let original = try TestFrame.decodeVideo(FaceClip.carphone, filter: "scale=352:288")
        _ = try FaceClip.checkNoFaceSurvives(input: original, output: released)
    }

    @Test("searching every frame: every frame is searched in order and no face the input showed survives")
    func everyFrameSearchLeavesNoFace() throws {
        let input = try TestFrame.decodeVideo(FaceClip.carphone, filter: "scale=352:288")
        let masker = try DelayLineMasker(
            width: 352, height: 288, settings: .init(capacity: 8, searchesEveryFrame: true),
            makeDetectors: { [SlowFaceDetector(delayMs: 20, detector: try CascadeFaceDetector())] })
        var released: [TestFrame] = []
        let collect = { (frame: MaskedFrame) in released.append(TestFrame(copying: frame.picture)) }
        for (index, picture) in input.enumerated() {
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect) }
        }
        try masker.finish(emit: collect)

        try #require(released.count == input.count)
        #expect(masker.framesSearched == input.count)
        let detector = try CascadeFaceDetector()
        let inputFaces = try input.map { try $0.faces(using: detector) }
        let outputFaces = try released.map { try $0.faces(using: detector) }
        #expect(inputFaces.filter { !$0.isEmpty }.count >= 60)
        let surviving = FaceClip.facesSurviving(input: inputFaces, output: outputFaces)
        #expect(surviving.isEmpty, "faces still detectable: \(surviving.prefix(5))")
    }

    @Test("a square the detector finds only 10 frames after it appeared is masked back to its first frame")
    func lateFoundSquareIsMaskedBack() throws {
        let masker = try DelayLineMasker(
            // This detector finds by frame number, not by what it sees (a real face that turns
            // to the camera changes the picture, and is searched again for it).
            width: 160, height: 120, settings: .init(capacity: 64, style: .fill, searchesChangedRegions: false, lookbackMs: 500),
            makeDetectors: { [LateSquareDetector(firstFound: 40)] })
        var released: [(number: Int, boxes: [PixelRect])] = []
        let collect = { (frame: MaskedFrame) in released.append((frameNumber(in: frame.picture), frame.maskedBoxes)) }
        let square = PixelRect(x: 60, y: 50, width: 20, height: 20)
        for index in 0..<80 {
            let picture = frame(squareX: index >= 30 ? square.x : nil)
            picture.setLuma(0, 0, UInt8(index))
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect) }
            usleep(20_000)
        }
        try masker.finish(emit: collect)

        try #require(released.map(\.number) == Array(0..<80))
        let exposed = (30..<80).filter { coverage(of: square, by: released[$0].boxes) < 1 }
        #expect(exposed.isEmpty, "frames showing the square: \(exposed)")
    }

    /// At 200 ms apart the source lost frames (a box short of CPU): each frame is then
    /// further than the stride in time from the one before, and is searched itself.
    @Test(
        "detection behind the frame rate: no frame leaves more than the busy stride (in frames or in time) past a searched one; frames wait instead",
        arguments: [Int64(33), 200])
    func slowDetectionSlowsTheFramesNotTheSearches(frameIntervalMs: Int64) throws {
        let log = SearchLog()
        let stride = DelayLineMasker.Settings.defaultBusySearchStride
        let masker = try DelayLineMasker(
            // A delay line long enough for 15 frames to pass one search: before the frame rate
            // gave way, they all left masked by tracking alone.
            width: 160, height: 120,
            settings: .init(capacity: 16, style: .fill, searchesChangedRegions: false, lookbackMs: 0, busySearchStride: stride),
            makeDetectors: { [LoggingSlowDetector(log: log)] })
        var released: [Int] = []
        let collect = { (frame: MaskedFrame) in released.append(frameNumber(in: frame.picture)) }
        for index in 0..<40 {
            let picture = frame(squareX: nil)
            picture.setLuma(0, 0, UInt8(index))
            try withExtendedLifetime(picture) {
                try masker.push(picture.frame, captureTimeMs: Int64(index) * frameIntervalMs, emit: collect)
            }
        }
        try masker.finish(emit: collect)

        #expect(released == Array(0..<40), "every frame leaves, in order: the frame rate gave way, not the frames")
        let searched = log.all
        let farFromSearches = released.filter { number in
            guard let last = searched.filter({ $0 <= number }).max() else { return true }
            return number - last > stride || Int64(number - last) * frameIntervalMs > masker.settings.busySearchSpanMs
        }
        #expect(farFromSearches.isEmpty, "frames more than \(stride) past a search: \(farFromSearches); searched \(searched)")
        #expect(searched.count >= 40 / (stride + 1), "searched \(searched.count) of 40")
        if frameIntervalMs == 33 { #expect(searched.count < 40, "at the source's own rate the stride saves searches") }
        #expect(masker.waitsForDetection > 0)
    }

    @Test("a detector too slow for the frame rate lets no frame out before a search at or after it; the waits are counted")
    func slowDetectionNeverReleasesUnsearchedFrames() throws {
        let log = SearchLog()
        let masker = try DelayLineMasker(
            // Every search runs the detector (none is skipped as "nothing changed"), so the log sees them all.
            width: 160, height: 120, settings: .init(capacity: 6, style: .fill, searchesChangedRegions: false, lookbackMs: 0),
            makeDetectors: { [LoggingSlowDetector(log: log)] })
        var early: [String] = []
        var released = 0
        let collect = { (frame: MaskedFrame) in
            let number = frameNumber(in: frame.picture)
            if log.newest < number { early.append("frame \(number) left when the newest search was \(log.newest)") }
            released += 1
        }
        for index in 0..<60 {
            let picture = frame(squareX: nil)
            picture.setLuma(0, 0, UInt8(index))
            try withExtendedLifetime(picture) { try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect) }
            usleep(2_000)
        }
        try masker.finish(emit: collect)

        #expect(released == 60)
        #expect(early.isEmpty, "\(early)")
        #expect(log.all.count < 60, "searched \(log.all.count) of 60")
        let waits = masker.counters.snapshot().waitsForDetection
        #expect(waits > 0 && waits == masker.waitsForDetection, "waits counted: \(waits)")
    }
}
