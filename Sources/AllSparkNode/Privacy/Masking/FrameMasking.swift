/// One frame at a time, in place: every raw frame passes through one of these before the
/// encoder sees it (`anonymize`; the recorder uses a `LiveFrameMasking`).
public protocol FrameMasking: AnyObject {
    /// Masks `frame` in place. Throwing means the frame must not be encoded as it is.
    func mask(_ frame: YUV420Frame, captureTimeMs: Int64) throws
    /// The boxes painted into the last frame, in its pixel coordinates.
    var lastMaskedBoxes: [PixelRect] { get }
}

/// The explicit opt-out (`privacy: none`): frames pass unchanged.
public final class NoMasking: FrameMasking {
    public let lastMaskedBoxes: [PixelRect] = []
    public init() {}
    public func mask(_ frame: YUV420Frame, captureTimeMs: Int64) throws {}
}
