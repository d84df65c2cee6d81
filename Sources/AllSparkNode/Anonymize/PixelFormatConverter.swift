import CFFmpeg

/// Converts whole pictures between pixel formats at the same size (libswscale).
final class PixelFormatConverter {
    let width: Int
    let height: Int
    let source: AVPixelFormat
    let target: AVPixelFormat
    private let context: OpaquePointer

    init(width: Int, height: Int, from source: AVPixelFormat, to target: AVPixelFormat) throws {
        // Accurate rounding: a pixel converted twice the same way comes out the same, which the
        // compositing of masked boxes relies on for an exact copy outside them.
        guard let context = sws_getContext(
            Int32(width), Int32(height), source, Int32(width), Int32(height), target,
            SWS_BILINEAR | SWS_ACCURATE_RND, nil, nil, nil)
        else {
            throw LibavError("converting \(width)x\(height) pictures to \(target)", code: allspark_averror(EINVAL))
        }
        self.width = width
        self.height = height
        self.source = source
        self.target = target
        self.context = context
    }

    deinit { sws_freeContext(context) }

    /// A new frame in the target format holding `frame`'s picture.
    func convert(_ frame: OwnedFrame) throws -> OwnedFrame {
        let converted = try OwnedFrame(width: width, height: height, format: target)
        try convert(frame.pointer, into: converted)
        return converted
    }

    func convert(_ frame: UnsafeMutablePointer<AVFrame>, into target: OwnedFrame) throws {
        try checkLibav(sws_scale_frame(context, target.pointer, frame), "converting a picture")
    }
}
