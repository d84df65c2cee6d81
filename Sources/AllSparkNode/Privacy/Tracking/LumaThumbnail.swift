import COpenCVShim
import Synchronization

/// A small grey copy of one frame's Y plane (at most `maxWidth` wide) and its optical-flow
/// pyramid: what tracking reads of a frame. Owns its buffers and reuses them while the
/// frame size stays the same, so refreshing it allocates nothing in steady state.
final class LumaThumbnail {
    let maxWidth: Int
    private(set) var width = 0
    private(set) var height = 0
    /// Thumbnail pixels per frame pixel (the same across and down, up to rounding).
    private(set) var scale = 1.0
    /// A number for the picture held now, new at every update and never given to another:
    /// what `FollowedPoints` knows a pair of pictures by.
    private(set) var picture = -1
    private var pixels: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    let pyramid: OpaquePointer
    private static let pictures = Atomic<Int>(0)

    init(maxWidth: Int) throws(PrivacyError) {
        guard maxWidth >= 32 else { throw .invalidSettings("tracking width \(maxWidth) is below 32 px") }
        var pyramid: OpaquePointer?
        guard allspark_flow_pyramid_create(&pyramid) == ALLSPARK_OK, let pyramid else {
            throw .detectorUnavailable("optical flow pyramid")
        }
        self.maxWidth = maxWidth
        self.pyramid = pyramid
    }

    deinit {
        pixels?.deallocate()
        allspark_flow_pyramid_free(pyramid)
    }

    /// Shrinks `frame`'s Y plane into the thumbnail with `scaler` (shared by a delay line's
    /// thumbnails, one at a time) and rebuilds the pyramid.
    func update(from frame: YUV420Frame, scaler: GreyScaler, window: Int, levels: Int) throws(PrivacyError) {
        let targetWidth = min(maxWidth, frame.width)
        let targetHeight = max(1, Int((Double(frame.height) * Double(targetWidth) / Double(frame.width)).rounded()))
        if targetWidth * targetHeight > capacity {
            pixels?.deallocate()
            pixels = .allocate(capacity: targetWidth * targetHeight)
            capacity = targetWidth * targetHeight
        }
        guard let pixels else { throw .detectionFailed("no thumbnail buffer") }
        picture = Self.pictures.add(1, ordering: .relaxed).newValue
        width = targetWidth
        height = targetHeight
        scale = Double(targetWidth) / Double(frame.width)
        let source = allspark_grey_image(
            pixels: UnsafePointer(frame.y), width: Int32(frame.width), height: Int32(frame.height), stride: Int32(frame.yStride))
        try scaler.resize(source, into: pixels, width: width, height: height)
        let built = allspark_flow_pyramid_build(pyramid, grey, Int32(window), Int32(levels))
        guard built == ALLSPARK_OK else {
            throw .detectionFailed("flow pyramid: \(String(cString: allspark_status_description(built)))")
        }
    }

    var grey: allspark_grey_image {
        allspark_grey_image(pixels: UnsafePointer(pixels), width: Int32(width), height: Int32(height), stride: Int32(width))
    }

    /// Row `y` of the thumbnail (`width` pixels).
    func row(_ y: Int) -> UnsafePointer<UInt8>? {
        pixels.map { UnsafePointer($0 + y * width) }
    }

    /// The thumbnail pixel at (x, y), clamped to the picture.
    func pixel(x: Int, y: Int) -> UInt8 {
        guard let pixels, width > 0 else { return 0 }
        return pixels[min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)]
    }
}
