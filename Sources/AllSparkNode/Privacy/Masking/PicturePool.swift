import CFFmpeg

/// The delay line's picture buffers, made when first needed and reused last-out first-in.
///
/// Only as many buffers exist as frames were ever held at once: a delay line whose
/// searches keep up holds a few frames, not its capacity (3 MB a frame at 1080p). Reusing
/// the most recently returned buffer keeps the same few warm.
final class PicturePool {
    let width: Int
    let height: Int
    private var spare: [OwnedFrame] = []
    /// Buffers made so far: the most frames held at once.
    private(set) var made = 0

    init(width: Int, height: Int, capacity: Int) {
        self.width = width
        self.height = height
        spare.reserveCapacity(capacity)
    }

    func take() throws -> OwnedFrame {
        if let buffer = spare.popLast() { return buffer }
        let buffer = try OwnedFrame(width: width, height: height, format: AV_PIX_FMT_YUV420P)
        made += 1
        return buffer
    }

    func giveBack(_ buffer: OwnedFrame) { spare.append(buffer) }
}
