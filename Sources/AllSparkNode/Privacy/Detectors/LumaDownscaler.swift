import COpenCVShim

/// Shrinks a frame's Y plane (already grey) to at most `maxWidth` pixels wide for
/// detection, into a buffer it owns and reuses: it allocates only when the frame size
/// changes.
final class LumaDownscaler {
    /// Frames no wider than this are searched as they are, without a copy.
    let maxWidth: Int
    private var buffer: UnsafeMutablePointer<UInt8>?
    private var bufferCapacity = 0
    private let scaler: GreyScaler

    init(maxWidth: Int) throws(PrivacyError) {
        guard maxWidth >= 32 else {
            throw .invalidSettings("detection width \(maxWidth) is below 32 px")
        }
        self.maxWidth = maxWidth
        scaler = try GreyScaler(finish: .area)
    }

    deinit {
        buffer?.deallocate()
    }

    /// The image to search; valid until the next call or until `frame`'s memory changes.
    func detectionImage(of frame: YUV420Frame) throws(PrivacyError) -> DetectionImage {
        guard frame.width > 0, frame.height > 0, frame.yStride >= frame.width,
              frame.yStride <= Int(Int32.max), frame.height <= Int(Int32.max)
        else {
            throw .detectionFailed("unusable frame \(frame.width)x\(frame.height), stride \(frame.yStride)")
        }
        let original = allspark_grey_image(
            pixels: UnsafePointer(frame.y), width: Int32(frame.width),
            height: Int32(frame.height), stride: Int32(frame.yStride))
        guard frame.width > maxWidth else {
            return DetectionImage(grey: original, frameWidth: frame.width, frameHeight: frame.height)
        }
        let width = maxWidth
        let height = max(1, Int((Double(frame.height) * Double(width) / Double(frame.width)).rounded()))
        let pixels = reserve(width * height)
        try scaler.resize(original, into: pixels, width: width, height: height)
        let shrunk = allspark_grey_image(
            pixels: UnsafePointer(pixels), width: Int32(width), height: Int32(height), stride: Int32(width))
        return DetectionImage(grey: shrunk, frameWidth: frame.width, frameHeight: frame.height)
    }

    private func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if let buffer, bufferCapacity >= count {
            return buffer
        }
        buffer?.deallocate()
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        buffer = fresh
        bufferCapacity = count
        return fresh
    }
}
