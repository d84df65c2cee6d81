import Testing

@testable import AllSparkNode

@Suite("Privacy: what the searches look at")
struct PrivacySearchPlanTests {
    @Test("at 1080p four edge windows of the frame's shape reach past the edges and cover the frame together")
    func edgeWindowsCoverTheFrame() {
        let plan = SearchPlan(width: 1920, height: 1080, detectionWidth: 640)
        #expect(plan.wholeRegion == nil)
        #expect(plan.edgeWindows.count == 4)
        let frame = PixelRect(x: 0, y: 0, width: 1920, height: 1080)
        for window in plan.edgeWindows {
            #expect(abs(Double(window.width) / Double(window.height) - 16.0 / 9) < 0.01, "\(window)")
            #expect(window.width >= 640)
            #expect(window.x < 0 || window.maxX > 1920, "\(window) reaches past a side")
            #expect(window.y < 0 || window.maxY > 1080, "\(window) reaches past the top or bottom")
        }
        // Every 8th pixel of the frame lies in a window, a face-sized square around the
        // frame's centre in one window whole.
        for y in stride(from: 0, to: 1080, by: 8) {
            for x in stride(from: 0, to: 1920, by: 8) {
                #expect(plan.edgeWindows.contains { $0.contains(x: x, y: y) }, "(\(x), \(y)) in no window")
            }
        }
        let centreFace = PixelRect(x: 960 - 48, y: 540 - 48, width: 96, height: 96)
        #expect(plan.edgeWindows.contains { $0.intersection(frame).contains(centreFace) })
    }

    @Test("whole-frame searches take every third turn, and each side's windows every sixth")
    func turns() {
        var plan = SearchPlan(width: 1280, height: 720, detectionWidth: 640)
        let turns = (0..<12).map { _ in plan.nextCoverage(wholeNeeded: false) }
        #expect(turns.filter { $0 == .whole }.count == 4)
        for index in 0..<4 { #expect(turns.filter { $0 == .edgeWindow(index) }.count == 2) }
        #expect(plan.nextCoverage(wholeNeeded: false) == .whole)
        _ = plan.nextCoverage(wholeNeeded: false)
        #expect(plan.nextCoverage(wholeNeeded: true) == .whole)
    }

    @Test("a frame too small for windows at the detector's scale is searched whole, reaching past every edge")
    func smallFrameIsSearchedWhole() {
        var plan = SearchPlan(width: 640, height: 360, detectionWidth: 640)
        #expect(plan.edgeWindows.isEmpty)
        let region = try! #require(plan.wholeRegion)
        #expect(region.x < 0 && region.y < 0 && region.maxX > 640 && region.maxY > 360)
        #expect((0..<6).allSatisfy { _ in plan.nextCoverage(wholeNeeded: false) == .whole })
    }

    @Test("no search of the plan looks coarser than half scale: 1080p is searched whole at 960x544", arguments: [
        (1280, 720, 32), (1920, 1080, 48), (2560, 1440, 64),
    ])
    func noSearchCoarserThanHalfScale(width: Int, height: Int, smallestFace: Int) {
        var plan = SearchPlan(width: width, height: height, detectionWidth: 640)
        #expect(SearchPlan.smallestHeldFace(height: height) == smallestFace)
        for _ in 0..<6 {
            let regions = plan.regions(for: plan.nextCoverage(wholeNeeded: false), width: width, height: height)
            let scale = regions.isWholeFrame
                ? SearchRegions.Region.scale(ofWidth: width, asked: nil, detectionWidth: 640)
                : (0..<regions.count).map { regions[$0].inputScale(detectionWidth: 640) }.min()!
            #expect(scale >= SearchPlan.coarsestScale)
            #expect(Double(smallestFace) * scale >= Double(SearchPlan.smallestFaceAtNet))
        }
        if width == 1920 {
            let whole = plan.regions(for: .whole, width: width, height: height)
            #expect(whole.count == 1 && whole[0].rect == PixelRect(x: 0, y: 0, width: 1920, height: 1080))
            let input = FaceNetSettings().inputSize(forWidth: 1920, height: 1080, scale: whole[0].scale)
            #expect(input.width == 960 && input.height == 544)
        }
    }
}
