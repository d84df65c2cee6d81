/// Masks what is crossing a side edge before any search can tell whether it is a face.
///
/// A face walking in at a side edge shows as a sliver first, and no detector finds a
/// quarter of a face. The delay line's lookback covers those frames only by holding every
/// frame until a later search has found the face, and every live viewer waits for it. The
/// guard needs no later frame: where the picture changed since the frame before in the
/// column of thumbnail blocks along a side edge, something is crossing that edge, and the
/// band beside it is masked, as tall as the change there (a block more above and below)
/// and as wide as it is tall, as a face is, up to `widestShare` of the frame. A still
/// picture at the edge is left to the searches, which see past the edge (`SearchPlan`).
/// Reads only the two thumbnails; allocates nothing.
enum EdgeGuard {
    /// Thumbnail pixels per block down each side: 8 px of a 480 px thumbnail is 21 px of a
    /// 1280 px frame.
    static let block = 8
    /// The widest band masked, as a share of the frame's width: a face 220 px wide in a
    /// 1280 px frame is 17% of it, and what the searches cannot find of it, 60% at most.
    static let widestShare = 0.12

    /// Appends to `boxes` (frame pixels) the bands of `later`'s frame beside what changed at
    /// either side edge since `earlier`. Thumbnails of different sizes add nothing: the
    /// searches see a new picture size first.
    static func guardedBands(
        from earlier: LumaThumbnail, to later: LumaThumbnail, frameWidth: Int, frameHeight: Int, into boxes: inout [PixelRect]
    ) {
        guard later.width >= 2 * block, later.height >= block, later.scale > 0,
            earlier.width == later.width, earlier.height == later.height
        else { return }
        guardSide(left: 0, earlier, later, frameWidth: frameWidth, frameHeight: frameHeight, into: &boxes)
        guardSide(left: later.width - block, earlier, later, frameWidth: frameWidth, frameHeight: frameHeight, into: &boxes)
    }

    /// One side: the thumbnail column of blocks from `left`, walked down in runs of changed blocks.
    private static func guardSide(
        left: Int, _ earlier: LumaThumbnail, _ later: LumaThumbnail, frameWidth: Int, frameHeight: Int, into boxes: inout [PixelRect]
    ) {
        let widest = Double(frameWidth) * widestShare
        var runTop: Int?
        for top in stride(from: 0, through: later.height, by: block) {
            if top < later.height, changedBlock(left: left, top: top, earlier, later) {
                if runTop == nil { runTop = top }
                continue
            }
            guard let start = runTop else { continue }
            runTop = nil
            let y0 = Int((Double(max(0, start - block)) / later.scale).rounded(.down))
            let y1 = min(frameHeight, Int((Double(min(later.height, top + block)) / later.scale).rounded(.up)))
            let bandWidth = Int(min(widest, Double(y1 - y0)).rounded(.up))
            boxes.append(PixelRect(x: left == 0 ? 0 : frameWidth - bandWidth, y: y0, width: bandWidth, height: y1 - y0))
        }
    }

    /// Whether the block at (`left`, `top`) differs by more than `ChangedArea.threshold`
    /// grey levels on average: sensor noise moves it by 1 or 2.
    private static func changedBlock(left: Int, top: Int, _ earlier: LumaThumbnail, _ later: LumaThumbnail) -> Bool {
        let bottom = min(top + block, later.height)
        var total = 0
        for y in top..<bottom {
            guard let a = earlier.row(y), let b = later.row(y) else { return false }
            for x in left..<left + block { total += abs(Int(a[x]) - Int(b[x])) }
        }
        return Double(total) > ChangedArea.threshold * Double((bottom - top) * block)
    }
}
