import Foundation
import Synchronization
import Testing

@testable import AllSparkNode

/// Counts the searches a detector is asked for and what each looked at, and finds the one
/// bright square (luma 250) a test draws, within the region it is given.
private final class RegionLoggingSquareDetector: RegionDetector {
    struct Search: Sendable {
        let region: PixelRect?
        let scale: Double?
    }

    final class Log: Sendable {
        private let searches = Mutex<[Search]>([])
        func add(_ search: Search) { searches.withLock { $0.append(search) } }
        var all: [Search] { searches.withLock { $0 } }
    }

    private let log: Log
    init(log: Log) { self.log = log }

    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        log.add(Search(region: nil, scale: nil))
        find(in: frame, within: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height), appendingTo: &regions)
    }

    func detect(in frame: YUV420Frame, within region: PixelRect, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        log.add(Search(region: region, scale: nil))
        find(in: frame, within: region, appendingTo: &regions)
    }

    func detect(in frame: YUV420Frame, within region: PixelRect, scale: Double, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        log.add(Search(region: region, scale: scale))
        find(in: frame, within: region, appendingTo: &regions)
    }

    /// Only a square wholly inside the region is found: a net misses a face it sees in part.
    private func find(in frame: YUV420Frame, within region: PixelRect, appendingTo regions: inout [PixelRect]) {
        usleep(3000)
        var found: PixelRect?
        for y in 0..<frame.height {
            for x in 0..<frame.width where frame.y[y * frame.yStride + x] == 250 {
                let pixel = PixelRect(x: x, y: y, width: 1, height: 1)
                found = found.map { $0.union(pixel) } ?? pixel
            }
        }
        if let found, region.contains(found) { regions.append(found) }
    }
}

@Suite("Privacy: searching only what changed since searches looked", .serialized)
struct PrivacyChangedSearchTests {
    private func thumbnail(of picture: TestFrame) throws -> LumaThumbnail {
        let thumbnail = try LumaThumbnail(maxWidth: 480)
        try thumbnail.update(from: picture.frame, scaler: GreyScaler(finish: .bilinear), window: 15, levels: 2)
        return thumbnail
    }

    /// A 1280x720 picture of fine stripes (or flat grey 100) with a `size` square of `shade`
    /// at each of `squares`.
    private func scene(squares: [(x: Int, y: Int)] = [], size: Int = 60, shade: UInt8 = 250, flat: Bool = false) -> TestFrame {
        let picture = stripedFrame(width: 1280, height: 720)
        if flat {
            for y in 0..<720 { for x in 0..<1280 { picture.setLuma(x, y, 100) } }
        }
        for square in squares {
            for y in square.y..<square.y + size {
                for x in square.x..<square.x + size { picture.setLuma(x, y, shade) }
            }
        }
        return picture
    }

    @Test("a block is searched again only once it changed since a search looked at it, however slowly it changed")
    func searchedPictureFlagsChangeSinceTheSearch() throws {
        let searched = SearchedPicture()
        var changed: [Bool] = []
        let still = try thumbnail(of: scene(flat: true))
        #expect(searched.changedBlocks(in: still, capturedAtMs: 0, into: &changed) == changed.count, "nothing searched yet: every block")
        searched.record(searchOf: PixelRect(x: 0, y: 0, width: 1280, height: 720), in: still, capturedAtMs: 0)
        #expect(searched.changedBlocks(in: still, capturedAtMs: 0, into: &changed) == 0)
        // A square brightening 1 grey level a frame changes too little between two frames
        // to count, but against what was searched it adds up.
        var flaggedAt: Int?
        for step in 1...60 {
            let later = try thumbnail(of: scene(squares: [(600, 300)], size: 120, shade: UInt8(100 + step), flat: true))
            if searched.changedBlocks(in: later, capturedAtMs: Int64(step) * 33, into: &changed) > 0 {
                flaggedAt = step
                break
            }
        }
        let step = try #require(flaggedAt, "a slow change was never flagged")
        #expect(step >= 4 && step <= 8, "flagged after \(step) levels")
        // Only blocks around the square.
        let flaggedBoxes = changed.indices.filter { changed[$0] }.map {
            searched.frameRect(blockX: $0 % searched.blocksAcross, blockY: $0 / searched.blocksAcross)
        }
        #expect(flaggedBoxes.allSatisfy { $0.intersection(PixelRect(x: 600, y: 300, width: 120, height: 120)).area > 0 }, "\(flaggedBoxes)")
        // And every block is looked at again once its last search is `refreshMs` old.
        #expect(searched.changedBlocks(in: still, capturedAtMs: searched.refreshMs, into: &changed) == 0)
        #expect(searched.changedBlocks(in: still, capturedAtMs: searched.refreshMs + 1, into: &changed) == changed.count)
    }

    @Test("changes in two corners become two small regions at half scale around them; change everywhere leaves the frame to its turn")
    func plannerSearchesSmallRegionsAroundChange() throws {
        let searched = SearchedPicture()
        var changed: [Bool] = []
        searched.record(searchOf: PixelRect(x: 0, y: 0, width: 1280, height: 720), in: try thumbnail(of: scene()), capturedAtMs: 0)
        var planner = ChangedRegionPlanner(frameWidth: 1280, frameHeight: 720, detectionWidth: 640)
        let squares = [PixelRect(x: 300, y: 200, width: 60, height: 60), PixelRect(x: 1100, y: 500, width: 60, height: 60)]
        #expect(searched.changedBlocks(in: try thumbnail(of: scene(squares: squares.map { ($0.x, $0.y) })), capturedAtMs: 33, into: &changed) > 0)
        let planned = planner.regions(changed: changed, in: searched, trackedFaces: [])
        let regions = try #require(planned)
        #expect(regions.count == 2)
        for square in squares {
            let holding = (0..<regions.count).map { regions[$0] }.filter { $0.rect.contains(square) }
            #expect(holding.count == 1, "\(square) in \((0..<regions.count).map { regions[$0].rect })")
            #expect(holding.first?.scale == 0.5)
            #expect((holding.first?.rect.width ?? 0) <= 640, "a small change is searched in a small region")
        }
        // A tracked face touching the change is searched whole with it.
        let face = PixelRect(x: 360, y: 160, width: 150, height: 180)
        let plannedWithFace = planner.regions(changed: changed, in: searched, trackedFaces: [face])
        let withFace = try #require(plannedWithFace)
        #expect((0..<withFace.count).contains { withFace[$0].rect.contains(face) })
        // Change all over the frame: the frame's own turn searches it.
        let everywhere = stride(from: 0, to: 1280, by: 160).flatMap { x in stride(from: 0, to: 720, by: 120).map { (x, $0) } }
        #expect(searched.changedBlocks(in: try thumbnail(of: scene(squares: everywhere)), capturedAtMs: 33, into: &changed) > 0)
        let plannedEverywhere = planner.regions(changed: changed, in: searched, trackedFaces: [])
        #expect(plannedEverywhere == nil)
    }

    @Test("a region around a change at the left edge reaches past it, as the edge windows do")
    func plannerReachesPastTheEdge() throws {
        let searched = SearchedPicture()
        var changed: [Bool] = []
        searched.record(searchOf: PixelRect(x: 0, y: 0, width: 1280, height: 720), in: try thumbnail(of: scene()), capturedAtMs: 0)
        var planner = ChangedRegionPlanner(frameWidth: 1280, frameHeight: 720, detectionWidth: 640)
        #expect(searched.changedBlocks(in: try thumbnail(of: scene(squares: [(0, 330)])), capturedAtMs: 33, into: &changed) > 0)
        let planned = planner.regions(changed: changed, in: searched, trackedFaces: [])
        let regions = try #require(planned)
        try #require(regions.count == 1)
        #expect(regions[0].rect.x < 0 && regions[0].rect.maxX > 60)
    }

    @Test("a still scene is searched once; a square that appears later is searched in its first frame, only where it is, and masked from it")
    func stillSceneIsSearchedOnlyWhereSomethingAppears() throws {
        let log = RegionLoggingSquareDetector.Log()
        let masker = try DelayLineMasker(
            width: 1280, height: 720, settings: .init(capacity: 8, style: .fill, lookbackMs: 0),
            makeDetectors: { [RegionLoggingSquareDetector(log: log)] })
        var released: [[PixelRect]] = []
        let collect = { (frame: MaskedFrame) in released.append(frame.maskedBoxes) }
        // Under 2 s of frames: no block is due for its refresh.
        let (appears, frames) = (30, 60)
        let square = PixelRect(x: 700, y: 300, width: 60, height: 60)
        let still = scene()
        let withSquare = scene(squares: [(square.x, square.y)])
        for index in 0..<frames {
            let picture = index < appears ? still : withSquare
            try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect)
            usleep(10_000)
        }
        try masker.finish(emit: collect)

        try #require(released.count == frames)
        let searches = log.all
        // The first frame's search (the whole frame) and the square's: nothing else changed.
        try #require(searches.count == 2, "\(searches.count) searches of a still scene: \(searches.map { String(describing: $0.region) })")
        #expect(searches[0].region == nil)
        // How many frames were handed over while detection was idle depends on the machine's
        // speed; that some were, and needed no search, does not.
        #expect(masker.framesUnchanged > 0)
        let squareSearch = try #require(searches[1].region)
        #expect(squareSearch.contains(square) && squareSearch.width <= 640 && searches[1].scale == 0.5, "searched \(squareSearch)")
        let exposed = (appears..<frames).filter { coverage(of: square, by: released[$0]) < 1 }
        #expect(exposed.isEmpty, "frames showing the square: \(exposed)")
        #expect(released[..<appears].allSatisfy { $0.isEmpty })
    }
    @Test("a busy scene is searched whole on every other frame; a square that appears in a frame between searches is masked from it")
    func busySceneIsSearchedEveryOtherFrame() throws {
        let log = RegionLoggingSquareDetector.Log()
        let masker = try DelayLineMasker(
            width: 1280, height: 720, settings: .init(capacity: 8, style: .fill, lookbackMs: 0, busySearchStride: 2),
            makeDetectors: { [RegionLoggingSquareDetector(log: log)] })
        var released: [[PixelRect]] = []
        let collect = { (frame: MaskedFrame) in released.append(frame.maskedBoxes) }
        let (appears, frames) = (21, 40)
        // In the top right corner, which three of the plan's four edge windows leave out.
        let square = PixelRect(x: 1150, y: 40, width: 60, height: 60)
        for index in 0..<frames {
            // A checkerboard of 32 px squares moving 8 px a frame: the whole picture changes,
            // as in a crowded scene.
            let picture = TestFrame(width: 1280, height: 720)
            for y in 0..<720 {
                for x in 0..<1280 { picture.setLuma(x, y, ((x + 8 * index) / 32 + y / 32) % 2 == 0 ? 200 : 60) }
            }
            if index >= appears {
                for y in square.y..<square.maxY { for x in square.x..<square.maxX { picture.setLuma(x, y, 250) } }
            }
            try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect)
            // Time for any search to end: detection is idle at every push, so only the stride
            // keeps it from searching every frame.
            usleep(60_000)
        }
        try masker.finish(emit: collect)

        try #require(released.count == frames)
        #expect(log.all.count <= frames / 2 + 1, "\(log.all.count) searches of \(frames) busy frames")
        // Something changed outside every edge window: no turn searched only a window.
        #expect(log.all.allSatisfy { $0.region == nil }, "\(log.all.compactMap(\.region))")
        let exposed = (appears..<frames).filter { coverage(of: square, by: released[$0]) < 1 }
        #expect(exposed.isEmpty, "frames showing the square: \(exposed)")
    }
}
