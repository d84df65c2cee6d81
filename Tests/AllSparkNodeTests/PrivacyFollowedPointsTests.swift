import COpenCVShim
import Testing

@testable import AllSparkNode

@Suite("Privacy: points followed once between two frames serve every box over them")
struct PrivacyFollowedPointsTests {
    static let width = 640
    static let height = 360

    @Test("a pair's points serve both directions, only inside the rectangle asked about, and the least used pair is forgotten")
    func pairsServeBothDirections() {
        let followed = FollowedPoints(pairs: 2)
        followed.remember(from: 1, to: 2, start: allspark_point(x: 10, y: 10), end: allspark_point(x: 13, y: 9))
        followed.remember(from: 2, to: 1, start: allspark_point(x: 33, y: 30), end: allspark_point(x: 30, y: 31))
        var dx: [Float] = []
        var dy: [Float] = []
        followed.collect(from: 1, to: 2, left: 0, top: 0, right: 40, bottom: 40, dx: &dx, dy: &dy)
        #expect(dx == [3, 3] && dy == [-1, -1])
        dx = []
        dy = []
        followed.collect(from: 2, to: 1, left: 0, top: 0, right: 20, bottom: 20, dx: &dx, dy: &dy)
        #expect(dx == [-3] && dy == [1], "only the point that lies at (13, 9) in picture 2")
        dx = []
        dy = []
        followed.collect(from: 1, to: 3, left: 0, top: 0, right: 40, bottom: 40, dx: &dx, dy: &dy)
        #expect(dx.isEmpty, "another pair of pictures")

        followed.remember(from: 3, to: 4, start: allspark_point(x: 1, y: 1), end: allspark_point(x: 2, y: 2))
        followed.remember(from: 5, to: 6, start: allspark_point(x: 1, y: 1), end: allspark_point(x: 2, y: 2))
        followed.collect(from: 1, to: 2, left: 0, top: 0, right: 40, bottom: 40, dx: &dx, dy: &dy)
        #expect(dx.isEmpty, "two pairs are remembered, the two used last")
    }

    @Test("a second box over the same two frames moves with the points the first followed; a box away from them follows its own")
    func overlappingBoxReusesPoints() throws {
        let frames = try TestHeldFrames()
        // The picture moves 8 px right from frame 0 to frame 1.
        try frames.push(texturedFrame(width: Self.width, height: Self.height), captureTimeMs: 0)
        try frames.push(texturedFrame(width: Self.width, height: Self.height, shiftX: 8), captureTimeMs: 33)
        let flow = BoxFlow()
        let first = try #require(flow.motion(of: PixelRect(x: 200, y: 120, width: 80, height: 80), from: frames.thumbnail(of: 0), to: frames.thumbnail(of: 1)))
        #expect(abs(first.x - 8) <= 1 && abs(first.y) <= 1, "\(first)")
        #expect(flow.gridsFollowed == 1)

        let nearby = try #require(flow.motion(of: PixelRect(x: 206, y: 116, width: 76, height: 84), from: frames.thumbnail(of: 0), to: frames.thumbnail(of: 1)))
        #expect(nearby == first)
        let back = try #require(flow.motion(of: PixelRect(x: 212, y: 122, width: 80, height: 80), from: frames.thumbnail(of: 1), to: frames.thumbnail(of: 0)))
        #expect(abs(back.x + 8) <= 1 && abs(back.y) <= 1, "\(back)")
        #expect(flow.gridsFollowed == 1, "both took the points followed for the first box")

        let away = try #require(flow.motion(of: PixelRect(x: 420, y: 200, width: 80, height: 80), from: frames.thumbnail(of: 0), to: frames.thumbnail(of: 1)))
        #expect(abs(away.x - 8) <= 1 && abs(away.y) <= 1, "\(away)")
        #expect(flow.gridsFollowed == 2)
    }

    /// Thumbnails refreshed with test pictures, as a delay line refreshes its own.
    private struct Thumbnails {
        let scaler: GreyScaler
        let settings = BoxFlow.Settings()

        init() throws { scaler = try GreyScaler(finish: .bilinear) }

        func make() throws -> LumaThumbnail { try LumaThumbnail(maxWidth: 480) }

        /// Makes `thumbnail` the picture of a textured frame moved `shiftX` px right.
        func show(frameShiftedBy shiftX: Int, in thumbnail: LumaThumbnail) throws {
            // A TestFrame owns the pixels its `frame` points at: it is kept alive while read.
            let picture = texturedFrame(width: PrivacyFollowedPointsTests.width, height: PrivacyFollowedPointsTests.height, shiftX: shiftX)
            try withExtendedLifetime(picture) {
                try thumbnail.update(from: picture.frame, scaler: scaler, window: settings.window, levels: settings.levels)
            }
        }
    }

    @Test("a thumbnail's flow pyramid is built only when flow first reads it, once per picture")
    func pyramidBuiltOnFirstRead() throws {
        let thumbnails = try Thumbnails()
        let first = try thumbnails.make()
        let second = try thumbnails.make()
        try thumbnails.show(frameShiftedBy: 0, in: first)
        try thumbnails.show(frameShiftedBy: 8, in: second)
        #expect(first.pyramidsBuilt == 0 && second.pyramidsBuilt == 0, "a frame no face is carried through costs no pyramid")

        let flow = BoxFlow()
        let moved = try #require(flow.motion(of: PixelRect(x: 200, y: 120, width: 80, height: 80), from: first, to: second))
        #expect(abs(moved.x - 8) <= 1 && abs(moved.y) <= 1, "the pyramids built late carry the motion: \(moved)")
        let away = try #require(flow.motion(of: PixelRect(x: 420, y: 200, width: 80, height: 80), from: first, to: second))
        #expect(abs(away.x - 8) <= 1, "\(away)")
        #expect(flow.gridsFollowed == 2)
        #expect(first.pyramidsBuilt == 1 && second.pyramidsBuilt == 1, "two grids followed over one pair build each pyramid once")

        try thumbnails.show(frameShiftedBy: 0, in: second)
        #expect(second.pyramidsBuilt == 1, "a new picture builds nothing until flow reads it")
        let still = try #require(flow.motion(of: PixelRect(x: 200, y: 120, width: 80, height: 80), from: first, to: second))
        #expect(still == (0, 0), "the pyramid is the new picture's, not the old one's: \(still)")
        #expect(first.pyramidsBuilt == 1 && second.pyramidsBuilt == 2)
    }

    @Test("a thumbnail made again for a new picture is a new pair: nothing followed for the old one is reused")
    func newPictureIsANewPair() throws {
        let thumbnails = try Thumbnails()
        let still = try thumbnails.make()
        let moving = try thumbnails.make()
        try thumbnails.show(frameShiftedBy: 0, in: still)
        try thumbnails.show(frameShiftedBy: 0, in: moving)
        let flow = BoxFlow()
        let box = PixelRect(x: 200, y: 120, width: 80, height: 80)
        #expect(flow.motion(of: box, from: still, to: moving).map { $0 == (0, 0) } == true)

        try thumbnails.show(frameShiftedBy: 12, in: moving)
        let moved = try #require(flow.motion(of: box, from: still, to: moving))
        #expect(abs(moved.x - 12) <= 1, "\(moved)")
        #expect(flow.gridsFollowed == 2)
    }
}
