/// A copy of a recent masked frame (the only kind that exists after the privacy pass),
/// for /api/snapshot.jpg and the dashboard. Planes are tightly packed yuv420p.
public struct SnapshotFrame: Sendable {
    public internal(set) var width = 0
    public internal(set) var height = 0
    public internal(set) var captureTimeMs: Int64 = 0
    /// Increases with every copy, so readers can tell a new frame from the last one.
    public internal(set) var sequence = 0
    var planes: [UInt8] = []

    /// Copies `frame` in, reusing the buffer when the size is unchanged.
    mutating func copy(from frame: YUV420Frame, captureTimeMs: Int64) {
        let lumaBytes = frame.width * frame.height
        let chromaBytes = frame.chromaWidth * frame.chromaHeight
        if planes.count != lumaBytes + 2 * chromaBytes {
            planes = [UInt8](repeating: 0, count: lumaBytes + 2 * chromaBytes)
        }
        width = frame.width
        height = frame.height
        self.captureTimeMs = captureTimeMs
        sequence += 1
        planes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            Self.copyPlane(from: frame.y, stride: frame.yStride, to: base, width: frame.width, height: frame.height)
            Self.copyPlane(from: frame.u, stride: frame.uStride, to: base + lumaBytes, width: frame.chromaWidth, height: frame.chromaHeight)
            Self.copyPlane(
                from: frame.v, stride: frame.vStride, to: base + lumaBytes + chromaBytes, width: frame.chromaWidth, height: frame.chromaHeight)
        }
    }

    private static func copyPlane(from source: UnsafeMutablePointer<UInt8>, stride: Int, to target: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        for row in 0..<height {
            (target + row * width).update(from: source + row * stride, count: width)
        }
    }
}
