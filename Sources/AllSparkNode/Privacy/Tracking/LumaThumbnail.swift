import COpenCVShim
import Synchronization

/// A small grey copy of one frame's Y plane (at most `maxWidth` wide) and its optical-flow
/// pyramid: what tracking reads of a frame. Owns its buffers and reuses them while the
/// frame size stays the same, so refreshing it allocates nothing in steady state.
///
/// The pyramid is built when flow first reads it, not with the picture: a frame no face is
/// carried through (a still or empty scene, most frames of a quiet one) never pays for its
/// levels and derivatives (a third of a millisecond a frame at 480 px, bench/history/26).
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
    private let pyramid: OpaquePointer
    /// Whether `pyramid` holds the levels of the picture held now.
    private var pyramidIsCurrent = false
    private var pyramidWindow = 0
    private var pyramidLevels = 0
    /// How many times a pyramid was built: once at most per picture, and only if flow read it.
    private(set) var pyramidsBuilt = 0
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
    /// thumbnails, one at a time); the pyramid, of `levels` above the picture for a flow
    /// window of `window` pixels, is built when first read (`flowPyramid`).
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
        pyramidIsCurrent = false
        try scaler.resize(source, into: pixels, width: width, height: height)
        pyramidWindow = window
        pyramidLevels = levels
    }

    /// The optical-flow pyramid of the picture held now, built on the first call after
    /// `update`; nil when it cannot be built (no picture yet, or OpenCV failed), which flow
    /// takes as motion it cannot measure.
    func flowPyramid() -> OpaquePointer? {
        if pyramidIsCurrent { return pyramid }
        guard pixels != nil, width > 0,
              allspark_flow_pyramid_build(pyramid, grey, Int32(pyramidWindow), Int32(pyramidLevels)) == ALLSPARK_OK
        else { return nil }
        pyramidIsCurrent = true
        pyramidsBuilt += 1
        return pyramid
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
