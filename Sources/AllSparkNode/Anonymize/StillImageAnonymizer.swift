import CFFmpeg

/// Masks one image file into another.
///
/// Detection and masking run on a yuv420p copy; the output is the original picture
/// converted to the output format, with only the masked boxes taken from the masked copy.
/// Coordinates are the image's own: odd sizes are kept as they are.
final class StillImageAnonymizer {
    private let masker: FaceMasker

    /// `masker` should hold boxes for 0 frames, so one image's faces never mask the next.
    init(masker: FaceMasker) {
        self.masker = masker
    }

    /// - Returns: the masked rectangles, in the image's pixel coordinates.
    /// - Throws: `AnonymizeError.unreadableImage` if `inputPath` cannot be decoded.
    func anonymize(_ inputPath: String, into outputPath: String, as format: StillImageFormat) throws -> [PixelRect] {
        let original: OwnedFrame
        do {
            original = try StillImageDecoder.decode(inputPath)
        } catch {
            throw AnonymizeError.unreadableImage(path: inputPath, reason: "\(error)")
        }
        let width = original.width
        let height = original.height
        guard width > 0, height > 0, original.format != AV_PIX_FMT_NONE else {
            throw AnonymizeError.unreadableImage(path: inputPath, reason: "no picture size or pixel format")
        }
        let working = try PixelFormatConverter(width: width, height: height, from: original.format, to: AV_PIX_FMT_YUV420P)
            .convert(original)
        masker.mask(working.yuv420Picture, captureTimeMs: 0)
        let boxes = masker.lastMaskedBoxes

        let output = try PixelFormatConverter(width: width, height: height, from: original.format, to: format.pixelFormat)
            .convert(original)
        if !boxes.isEmpty {
            let masked = try PixelFormatConverter(width: width, height: height, from: AV_PIX_FMT_YUV420P, to: format.pixelFormat)
                .convert(working)
            MaskedBoxCompositor(format: format).copy(boxes, from: masked, into: output)
        }
        try StillImageEncoder.write(output, as: format, to: outputPath)
        return boxes
    }
}
