import CFFmpeg

/// An AVFrame with its own picture buffer, freed with the object.
final class OwnedFrame {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// An empty frame, for a decoder to fill.
    init() throws {
        guard let frame = av_frame_alloc() else { throw LibavError("allocating a frame", code: allspark_averror(ENOMEM)) }
        pointer = frame
    }

    /// A frame with a writable picture buffer of this size and pixel format.
    convenience init(width: Int, height: Int, format: AVPixelFormat) throws {
        try self.init()
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = format.rawValue
        try checkLibav(av_frame_get_buffer(pointer, 0), "allocating a \(width)x\(height) picture")
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    var width: Int { Int(pointer.pointee.width) }
    var height: Int { Int(pointer.pointee.height) }
    var format: AVPixelFormat { AVPixelFormat(pointer.pointee.format) }

    /// The start of plane `index` (nil where the format has no such plane).
    func plane(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
        withUnsafeBytes(of: pointer.pointee.data) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
    }

    /// Bytes from one row of plane `index` to the next.
    func lineSize(_ index: Int) -> Int {
        withUnsafeBytes(of: pointer.pointee.linesize) { Int($0.load(fromByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self)) }
    }

    /// The picture as the masker sees it; only for yuv420p frames.
    var yuv420Picture: YUV420Frame {
        precondition(format == AV_PIX_FMT_YUV420P, "not a yuv420p frame")
        return YUV420Frame(
            width: width, height: height,
            y: plane(0)!, yStride: lineSize(0),
            u: plane(1)!, uStride: lineSize(1),
            v: plane(2)!, vStride: lineSize(2))
    }
}
