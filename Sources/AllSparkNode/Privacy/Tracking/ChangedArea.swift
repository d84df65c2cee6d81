/// Where the picture changed between two frames of a fixed camera: the box, in frame
/// pixels, around every 16x16 thumbnail block whose mean absolute difference is above
/// `threshold` grey levels. Sensor noise moves a block's mean difference by 1 or 2 levels;
/// a face that moves, turns or appears by far more.
enum ChangedArea {
    static let block = 16
    static let threshold = 4.0

    /// What changed from `earlier` to `later`: nil when nothing did, else the changed
    /// blocks' bounding box grown by `blocksAround` blocks on each side (a face half inside
    /// the changed part is searched whole), in frame pixels, not clamped to the frame.
    /// Thumbnails of different sizes changed everywhere.
    static func between(_ earlier: LumaThumbnail, _ later: LumaThumbnail, blocksAround: Int = 2) -> PixelRect? {
        guard later.width > 0, later.scale > 0 else { return nil }
        guard earlier.width == later.width, earlier.height == later.height else {
            return PixelRect(
                x: 0, y: 0, width: Int((Double(later.width) / later.scale).rounded(.up)),
                height: Int((Double(later.height) / later.scale).rounded(.up)))
        }
        var changed: PixelRect?
        for top in stride(from: 0, to: later.height, by: block) {
            let bottom = min(top + block, later.height)
            for left in stride(from: 0, to: later.width, by: block) {
                let right = min(left + block, later.width)
                var total = 0
                for y in top..<bottom {
                    guard let a = earlier.row(y), let b = later.row(y) else { continue }
                    for x in left..<right { total += abs(Int(a[x]) - Int(b[x])) }
                }
                guard Double(total) > threshold * Double((bottom - top) * (right - left)) else { continue }
                let area = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
                changed = changed.map { $0.union(area) } ?? area
            }
        }
        guard let changed else { return nil }
        let grown = PixelRect(
            x: changed.x - blocksAround * block, y: changed.y - blocksAround * block,
            width: changed.width + 2 * blocksAround * block, height: changed.height + 2 * blocksAround * block)
        let inverse = 1 / later.scale
        return PixelRect(
            x: Int((Double(grown.x) * inverse).rounded(.down)), y: Int((Double(grown.y) * inverse).rounded(.down)),
            width: Int((Double(grown.width) * inverse).rounded(.up)), height: Int((Double(grown.height) * inverse).rounded(.up)))
    }
}
