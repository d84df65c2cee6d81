/// What the edges of the picture have looked like lately: a running average of the
/// tracking thumbnail's pixels in the strips along its four edges (`EdgeGuard.block` deep),
/// each frame moving it a 32nd of the way to the picture (about a second at 30 fps).
///
/// `EdgeGuard` compares each frame with the one before, which misses what creeps in: a face
/// rising into view from the bottom at a pixel a frame, in a dark room, changes an edge
/// block by less than the threshold from one frame to the next (bench history 33: shown
/// for 15 frames). Against the background the same face differs by its whole contrast
/// within a few frames. Allocates only when the thumbnail size changes.
struct EdgeBackground {
    /// Fixed point: the averages are kept in sixteenths of a grey level.
    private static let fractionBits = 4
    /// Each frame moves the average 1/2^followShift of the way to the picture.
    private static let followShift = 5

    private var averages: [Int32] = []
    private(set) var width = 0
    private(set) var height = 0

    /// Whether the background has the size of `thumbnail` (else it starts from it).
    func fits(_ thumbnail: LumaThumbnail) -> Bool { width == thumbnail.width && height == thumbnail.height && !averages.isEmpty }

    /// Whether the block at (`x`, `y`) of `thumbnail` (within the edge strips) differs from the
    /// background by more than `BlockChange.threshold` grey levels on average.
    func differs(x: Int, y: Int, block: Int, in thumbnail: LumaThumbnail) -> Bool {
        guard fits(thumbnail) else { return false }
        let (right, bottom) = (min(x + block, width), min(y + block, height))
        var total = 0
        for row in y..<bottom {
            guard let pixels = thumbnail.row(row) else { return false }
            let start = row * width
            for column in x..<right {
                total += abs((Int(pixels[column]) << Self.fractionBits) - Int(averages[start + column]))
            }
        }
        return Double(total) > BlockChange.threshold * Double(1 << Self.fractionBits) * Double((bottom - y) * (right - x))
    }

    /// Moves the edge strips' averages towards `thumbnail` (or starts them from it when the
    /// size is new).
    mutating func follow(_ thumbnail: LumaThumbnail, block: Int) {
        let starting = !fits(thumbnail)
        if starting {
            width = thumbnail.width
            height = thumbnail.height
            averages = [Int32](repeating: 0, count: width * height)
        }
        for row in 0..<height {
            guard let pixels = thumbnail.row(row) else { return }
            let start = row * width
            let wholeRow = row < block || row >= height - block
            var column = 0
            while column < width {
                let value = Int32(pixels[column]) << Self.fractionBits
                averages[start + column] = starting ? value : averages[start + column] + (value - averages[start + column]) >> Self.followShift
                // Only the strips: the whole row near the top and bottom, the ends of the rest.
                column = (!wholeRow && column == block - 1) ? max(block, width - block) : column + 1
            }
        }
    }
}
