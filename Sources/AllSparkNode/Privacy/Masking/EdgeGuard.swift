/// Masks what is crossing an edge of the picture before any search can tell whether it is
/// a face.
///
/// A face walking in shows as a sliver first, and no detector finds a quarter of a face.
/// The delay line's lookback covers those frames only by holding every frame until a later
/// search has found the face, and every live viewer waits for it. The guard needs no later
/// frame: where the picture changed in the row of thumbnail blocks along an edge, since the
/// frame before or against what the edge looked like lately (`EdgeBackground`: something
/// creeping in slowly), something is crossing that edge, and the band beside it is masked,
/// as long as the change there (a block more at each end) and as deep as it is long, as a
/// face is about as tall as wide, up to `deepestShare` of the frame's width. A still picture
/// at the edge is left to the searches, which see past the edge (`SearchPlan`). Reads only
/// the two thumbnails and the background; allocates nothing.
enum EdgeGuard {
    /// Thumbnail pixels per block along each edge: 8 px of a 480 px thumbnail is 21 px of a
    /// 1280 px frame.
    static let block = 8
    /// The deepest band masked, as a share of the frame's width: a face 220 px wide in a
    /// 1280 px frame is 17% of it, and what the searches cannot find of it, 60% at most.
    static let deepestShare = 0.12

    private enum Edge { case left, right, top, bottom }
    private static let edges: [Edge] = [.left, .right, .top, .bottom]

    /// Appends to `boxes` (frame pixels) the bands of `later`'s frame beside what changed at
    /// its edges since `earlier` or against `background`, then moves the background on to
    /// `later`. Thumbnails of different sizes add nothing: the searches see a new picture size first.
    static func guardedBands(
        from earlier: LumaThumbnail, to later: LumaThumbnail, background: inout EdgeBackground, frameWidth: Int, frameHeight: Int,
        into boxes: inout [PixelRect]
    ) {
        guard later.width >= 2 * block, later.height >= 2 * block, later.scale > 0,
            earlier.width == later.width, earlier.height == later.height
        else { return }
        for edge in edges {
            guardEdge(edge, earlier, later, background, frameWidth: frameWidth, frameHeight: frameHeight, into: &boxes)
        }
        background.follow(later, block: block)
    }

    /// One edge: its row (or column) of thumbnail blocks, walked in runs of changed blocks.
    private static func guardEdge(
        _ edge: Edge, _ earlier: LumaThumbnail, _ later: LumaThumbnail, _ background: EdgeBackground, frameWidth: Int,
        frameHeight: Int, into boxes: inout [PixelRect]
    ) {
        let side = edge == .left || edge == .right
        let length = side ? later.height : later.width
        let across = edge == .right ? later.width - block : edge == .bottom ? later.height - block : 0
        let deepest = Double(frameWidth) * deepestShare
        var runStart: Int?
        for position in stride(from: 0, through: length, by: block) {
            let (x, y) = (side ? across : position, side ? position : across)
            if position < length, changedBlock(x: x, y: y, earlier, later) || background.differs(x: x, y: y, block: block, in: later) {
                if runStart == nil { runStart = position }
                continue
            }
            guard let start = runStart else { continue }
            runStart = nil
            let from = Int((Double(max(0, start - block)) / later.scale).rounded(.down))
            let to = min(side ? frameHeight : frameWidth, Int((Double(min(length, position + block)) / later.scale).rounded(.up)))
            let depth = Int(min(deepest, Double(to - from)).rounded(.up))
            switch edge {
            case .left: boxes.append(PixelRect(x: 0, y: from, width: depth, height: to - from))
            case .right: boxes.append(PixelRect(x: frameWidth - depth, y: from, width: depth, height: to - from))
            case .top: boxes.append(PixelRect(x: from, y: 0, width: to - from, height: depth))
            case .bottom: boxes.append(PixelRect(x: from, y: frameHeight - depth, width: to - from, height: depth))
            }
        }
    }

    /// Whether the block at (`x`, `y`) differs by more than `BlockChange.threshold` grey
    /// levels on average: sensor noise moves it by 1 or 2.
    private static func changedBlock(x: Int, y: Int, _ earlier: LumaThumbnail, _ later: LumaThumbnail) -> Bool {
        let (right, bottom) = (min(x + block, later.width), min(y + block, later.height))
        var total = 0
        for row in y..<bottom {
            guard let a = earlier.row(row), let b = later.row(row) else { return false }
            for column in x..<right { total += abs(Int(a[column]) - Int(b[column])) }
        }
        return Double(total) > BlockChange.threshold * Double((bottom - y) * (right - x))
    }
}
