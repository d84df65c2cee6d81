/// Fills each cell of a plane's grid of `cell`-sided squares, as far as it lies in an area,
/// with its mean there (rounded to the nearest level).
///
/// Works a band of cell rows at a time in whole rows: the band's column sums in one pass
/// per row (a loop the compiler vectorises), each cell's mean from them, then every row
/// of the band written from one pattern row. Cell by cell, the sums and fills ran a few
/// pixels at a time and cost a sixth of the recording thread's privacy work
/// (bench/history 21). Keeps its two rows: allocates only for an area wider than before.
final class MosaicCells {
    private var columnSums: UnsafeMutablePointer<UInt32>
    private var pattern: UnsafeMutablePointer<UInt8>
    private var capacity: Int

    init(capacity: Int = 1920) {
        self.capacity = max(1, capacity)
        columnSums = .allocate(capacity: self.capacity)
        pattern = .allocate(capacity: self.capacity)
    }

    deinit {
        columnSums.deallocate()
        pattern.deallocate()
    }

    func pixelate(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, _ area: PixelRect, cell: Int) {
        guard !area.isEmpty, cell > 0 else { return }
        let width = area.width
        reserve(width)
        let sums = columnSums
        let pattern = pattern
        var top = area.y
        while top < area.maxY {
            let bottom = min(area.maxY, (top / cell + 1) * cell)
            sums.update(repeating: 0, count: width)
            for row in top..<bottom {
                let pixels = UnsafePointer(plane + row * stride + area.x)
                // A cell is at most a few hundred rows of 255: no sum can wrap.
                for x in 0..<width { sums[x] &+= UInt32(pixels[x]) }
            }
            var left = area.x
            while left < area.maxX {
                let right = min(area.maxX, (left / cell + 1) * cell)
                var sum = 0
                for x in (left - area.x)..<(right - area.x) { sum += Int(sums[x]) }
                let count = (right - left) * (bottom - top)
                (pattern + (left - area.x)).update(repeating: UInt8((sum + count / 2) / count), count: right - left)
                left = right
            }
            for row in top..<bottom { (plane + row * stride + area.x).update(from: pattern, count: width) }
            top = bottom
        }
    }

    private func reserve(_ width: Int) {
        guard width > capacity else { return }
        columnSums.deallocate()
        pattern.deallocate()
        capacity = width
        columnSums = .allocate(capacity: width)
        pattern = .allocate(capacity: width)
    }
}
