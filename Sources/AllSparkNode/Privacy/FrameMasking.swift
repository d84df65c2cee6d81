/// The seam between capture and encoding: every raw frame passes through one of these,
/// in place, before the encoder sees it.
public protocol FrameMasking: AnyObject {
    /// Masks `frame` in place. Throwing means the frame must not be encoded as it is.
    func mask(_ frame: YUV420Frame, captureTimeMs: Int64) throws
}

/// The explicit opt-out (`privacy: none`): frames pass unchanged.
public final class NoMasking: FrameMasking {
    public init() {}
    public func mask(_ frame: YUV420Frame, captureTimeMs: Int64) throws {}
}
