import CFFmpeg

/// Copies the masked boxes of one picture into another of the same size and format.
///
/// The image path masks a yuv420p copy, but writes the output from the original picture:
/// only the boxes come from the masked copy, so every pixel outside them is exactly the
/// input's (before the output file's own compression).
struct MaskedBoxCompositor {
    let format: StillImageFormat

    /// `boxes` must be aligned to the 2x2 grid (`PixelRect.alignedToChromaGrid`), as the
    /// masker's are, so subsampled planes have whole samples per box.
    func copy(_ boxes: [PixelRect], from masked: OwnedFrame, into output: OwnedFrame) {
        for box in boxes {
            for plane in format.planes {
                let area = plane.subsampled ? MaskPainter.chromaRect(of: box) : box
                guard !area.isEmpty, let source = masked.plane(plane.index), let target = output.plane(plane.index) else {
                    continue
                }
                let sourceStride = masked.lineSize(plane.index)
                let targetStride = output.lineSize(plane.index)
                for row in area.y..<area.maxY {
                    (target + row * targetStride + area.x * plane.bytesPerPixel).update(
                        from: source + row * sourceStride + area.x * plane.bytesPerPixel,
                        count: area.width * plane.bytesPerPixel)
                }
            }
        }
    }
}
