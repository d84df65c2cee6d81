/// A writable view of one planar YUV 4:2:0 picture (the layout libx264 encodes).
///
/// The view does not own its memory: the capture stage owns the buffer and lends it to
/// each stage (privacy, then the encoder) for the duration of one call.
public struct YUV420Frame {
    public let width: Int
    public let height: Int
    public let y: UnsafeMutablePointer<UInt8>
    public let yStride: Int
    public let u: UnsafeMutablePointer<UInt8>
    public let uStride: Int
    public let v: UnsafeMutablePointer<UInt8>
    public let vStride: Int

    public init(
        width: Int, height: Int,
        y: UnsafeMutablePointer<UInt8>, yStride: Int,
        u: UnsafeMutablePointer<UInt8>, uStride: Int,
        v: UnsafeMutablePointer<UInt8>, vStride: Int
    ) {
        self.width = width
        self.height = height
        self.y = y
        self.yStride = yStride
        self.u = u
        self.uStride = uStride
        self.v = v
        self.vStride = vStride
    }

    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
}
