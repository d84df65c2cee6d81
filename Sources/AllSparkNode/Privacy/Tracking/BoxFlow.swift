import COpenCVShim

/// Moves a face box from one frame to the next by the measured motion of the picture
/// inside it: a grid of points is followed with pyramidal Lucas-Kanade flow there and
/// back, points that do not return to where they started are dropped, and the box moves
/// by the median of the rest. When too few points survive (a blank wall, a face leaving
/// the picture) the motion is unknown: the box stays and its uncertainty grows more, so
/// the mask errs towards covering.
///
/// Where trusted points followed before between the same two pictures already lie inside
/// the box, on at least half as many as the grid has (`FollowedPoints`), the box moves by
/// the median of theirs instead: each face's box crosses each pair of frames about twice.
///
/// Works in thumbnail coordinates; boxes are in frame pixels. Owns its point buffers.
final class BoxFlow {
    struct Settings: Sendable, Equatable {
        /// Points across and down the box.
        var grid = 4
        /// Lucas-Kanade window, in thumbnail pixels, and pyramid levels above the picture.
        var window = 15
        var levels = 2
        /// A point that comes back further than this (thumbnail pixels) is not trusted.
        var maximumReturnError: Float = 1.0
        /// Fewer trusted points than this: the motion is unknown.
        var minimumPoints = 3
        /// Trusted points followed before over the same pictures, inside the inner part of the
        /// box, that stand in for following its own grid (half the grid's).
        var reusedPoints = 8
        /// Per side, as a fraction of the box: what a moved box grows by for the error of
        /// the measured motion, what a box whose motion is unknown grows by, and the most
        /// either adds up to.
        var measuredGrowth = 0.02
        var unknownGrowth = 0.06
        var maximumGrowth = 0.5
    }

    let settings: Settings
    private let start: UnsafeMutablePointer<allspark_point>
    private let moved: UnsafeMutablePointer<allspark_point>
    private let returned: UnsafeMutablePointer<allspark_point>
    private let foundThere: UnsafeMutablePointer<UInt8>
    private let foundBack: UnsafeMutablePointer<UInt8>
    private var dx: [Float]
    private var dy: [Float]
    private let followed = FollowedPoints()
    /// Boxes whose own grid was followed (the others took points followed before).
    private(set) var gridsFollowed = 0

    init(settings: Settings = Settings()) {
        self.settings = settings
        let count = settings.grid * settings.grid
        start = .allocate(capacity: count)
        moved = .allocate(capacity: count)
        returned = .allocate(capacity: count)
        foundThere = .allocate(capacity: count)
        foundBack = .allocate(capacity: count)
        dx = []
        dy = []
        dx.reserveCapacity(4 * count)
        dy.reserveCapacity(4 * count)
    }

    deinit {
        start.deallocate()
        moved.deallocate()
        returned.deallocate()
        foundThere.deallocate()
        foundBack.deallocate()
    }

    /// `tracked` moved from the frame of `from` to the frame of `to`, its uncertainty
    /// grown for the step.
    func move(_ tracked: TrackedBox, from: LumaThumbnail, to: LumaThumbnail) -> TrackedBox {
        guard let shift = motion(of: tracked.box, from: from, to: to) else {
            return TrackedBox(box: tracked.box, growth: min(settings.maximumGrowth, tracked.growth + settings.unknownGrowth))
        }
        let box = tracked.box
        return TrackedBox(
            box: PixelRect(x: box.x + shift.x, y: box.y + shift.y, width: box.width, height: box.height),
            growth: min(settings.maximumGrowth, tracked.growth + settings.measuredGrowth))
    }

    /// The median motion of the picture inside `box` (frame pixels), or nil when it cannot
    /// be measured.
    func motion(of box: PixelRect, from: LumaThumbnail, to: LumaThumbnail) -> (x: Int, y: Int)? {
        let scale = from.scale
        guard !box.isEmpty, scale > 0 else { return nil }
        dx.removeAll(keepingCapacity: true)
        dy.removeAll(keepingCapacity: true)
        // Points on the inner part of the box: its edges often hold background that moves
        // differently from the face.
        let inner = innerPart(of: box, scale: scale)
        followed.collect(
            from: from.picture, to: to.picture, left: inner.left, top: inner.top, right: inner.right, bottom: inner.bottom,
            dx: &dx, dy: &dy)
        if dx.count < settings.reusedPoints {
            dx.removeAll(keepingCapacity: true)
            dy.removeAll(keepingCapacity: true)
            follow(box, from: from, to: to)
        }
        guard dx.count >= settings.minimumPoints else { return nil }
        dx.sort()
        dy.sort()
        return (Int((Double(dx[dx.count / 2]) / scale).rounded()), Int((Double(dy[dy.count / 2]) / scale).rounded()))
    }

    /// What the box's edges leave out of its inner part, per side, as a fraction of the box.
    private static let edgeMargin = 0.15

    /// The inner part of `box` (frame pixels), in thumbnail pixels: where its grid's points lie.
    private func innerPart(of box: PixelRect, scale: Double) -> (left: Float, top: Float, right: Float, bottom: Float) {
        let x = Double(box.x)
        let y = Double(box.y)
        let width = Double(box.width)
        let height = Double(box.height)
        let near = Self.edgeMargin
        let far = 1 - Self.edgeMargin
        return (
            Float((x + near * width) * scale), Float((y + near * height) * scale), Float((x + far * width) * scale),
            Float((y + far * height) * scale)
        )
    }

    /// Follows the box's grid of points there and back, and puts the motion of those that
    /// came back in `dx` and `dy` (and in `followed`).
    private func follow(_ box: PixelRect, from: LumaThumbnail, to: LumaThumbnail) {
        let scale = from.scale
        let grid = settings.grid
        let count = grid * grid
        gridsFollowed += 1
        for row in 0..<grid {
            for column in 0..<grid {
                let fx = (Double(column) + 0.5) / Double(grid) * (1 - 2 * Self.edgeMargin) + Self.edgeMargin
                let fy = (Double(row) + 0.5) / Double(grid) * (1 - 2 * Self.edgeMargin) + Self.edgeMargin
                start[row * grid + column] = allspark_point(
                    x: Float((Double(box.x) + fx * Double(box.width)) * scale),
                    y: Float((Double(box.y) + fy * Double(box.height)) * scale))
            }
        }
        guard let fromPyramid = from.flowPyramid(), let toPyramid = to.flowPyramid(),
              allspark_flow_track(fromPyramid, toPyramid, start, moved, foundThere, Int32(count)) == ALLSPARK_OK,
              allspark_flow_track(toPyramid, fromPyramid, moved, returned, foundBack, Int32(count)) == ALLSPARK_OK
        else { return }
        for index in 0..<count where foundThere[index] != 0 && foundBack[index] != 0 {
            let errorX = returned[index].x - start[index].x
            let errorY = returned[index].y - start[index].y
            guard errorX * errorX + errorY * errorY <= settings.maximumReturnError * settings.maximumReturnError else { continue }
            dx.append(moved[index].x - start[index].x)
            dy.append(moved[index].y - start[index].y)
            followed.remember(from: from.picture, to: to.picture, start: start[index], end: moved[index])
        }
    }
}

/// A face box carried from the frame it was found in to another, and how much it must
/// grow on each side (a fraction of its size) to cover the face despite the error of
/// the motion that carried it.
struct TrackedBox: Equatable {
    var box: PixelRect
    var growth: Double

    init(box: PixelRect, growth: Double = 0) {
        self.box = box
        self.growth = growth
    }
}
