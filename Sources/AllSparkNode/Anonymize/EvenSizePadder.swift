import CFFmpeg

/// libx264 needs even sizes in 4:2:0. An odd-sized picture is copied into one a pixel
/// wider and/or taller, repeating its last column and row, so the output keeps every input
/// pixel at the same coordinates (the boxes log stays in IN's coordinates) and the added
/// edge is a copy of pixels already masked or not.
final class EvenSizePadder {
    let padded: OwnedFrame

    /// Nil when `width` x `height` is already even.
    init?(width: Int, height: Int) throws {
        guard width % 2 == 1 || height % 2 == 1 else { return nil }
        padded = try OwnedFrame(width: width + width % 2, height: height + height % 2, format: AV_PIX_FMT_YUV420P)
    }

    /// Copies `picture` in and returns the padded frame. Chroma needs no padding: an odd
    /// size already has a chroma sample for its last half column and row.
    func pad(_ picture: YUV420Frame) throws -> UnsafeMutablePointer<AVFrame> {
        try checkLibav(av_frame_make_writable(padded.pointer), "making the padded picture writable")
        let target = padded.yuv420Picture
        for row in 0..<target.height {
            let source = picture.y + min(row, picture.height - 1) * picture.yStride
            let line = target.y + row * target.yStride
            line.update(from: source, count: picture.width)
            if target.width > picture.width { line[picture.width] = source[picture.width - 1] }
        }
        for row in 0..<picture.chromaHeight {
            (target.u + row * target.uStride).update(from: picture.u + row * picture.uStride, count: picture.chromaWidth)
            (target.v + row * target.vStride).update(from: picture.v + row * picture.vStride, count: picture.chromaWidth)
        }
        return padded.pointer
    }
}
