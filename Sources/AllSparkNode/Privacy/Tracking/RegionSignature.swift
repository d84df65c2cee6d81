/// A coarse 8x8 grid of mean brightness over a box: enough to tell whether what is in the
/// box has changed (a person who stays seated) without keeping the pixels.
struct RegionSignature: Equatable {
    static let side = 8
    /// Mean absolute difference, in grey levels, above which a region has changed. Sensor
    /// noise and compression move 8x8 block means by 1 or 2; a turned head by far more.
    static let changedAbove = 6.0

    private var means: [UInt8]

    /// Samples `box` (frame coordinates) of the thumbnail.
    init(of box: PixelRect, in thumbnail: LumaThumbnail) {
        means = Array(repeating: 0, count: Self.side * Self.side)
        update(box, in: thumbnail)
    }

    mutating func update(_ box: PixelRect, in thumbnail: LumaThumbnail) {
        let side = Self.side
        let left = Double(box.x) * thumbnail.scale
        let top = Double(box.y) * thumbnail.scale
        let cellWidth = max(Double(box.width) * thumbnail.scale / Double(side), 1e-3)
        let cellHeight = max(Double(box.height) * thumbnail.scale / Double(side), 1e-3)
        for row in 0..<side {
            for column in 0..<side {
                let x0 = Int(left + Double(column) * cellWidth)
                let y0 = Int(top + Double(row) * cellHeight)
                let x1 = max(x0 + 1, Int(left + Double(column + 1) * cellWidth))
                let y1 = max(y0 + 1, Int(top + Double(row + 1) * cellHeight))
                var sum = 0
                for y in y0..<y1 {
                    for x in x0..<x1 { sum += Int(thumbnail.pixel(x: x, y: y)) }
                }
                means[row * side + column] = UInt8(sum / ((x1 - x0) * (y1 - y0)))
            }
        }
    }

    /// Mean absolute difference of the two grids, in grey levels.
    func difference(from other: RegionSignature) -> Double {
        var total = 0
        for index in means.indices { total += abs(Int(means[index]) - Int(other.means[index])) }
        return Double(total) / Double(means.count)
    }
}
