import CFFmpeg

/// A frame that has been through the privacy pass and may be encoded; valid only during
/// the `emit` call that hands it out.
public struct MaskedFrame {
    public let picture: YUV420Frame
    public let captureTimeMs: Int64
    /// The boxes painted, in the frame's pixel coordinates.
    public let maskedBoxes: [PixelRect]
    /// The same picture as an AVFrame, for the encoder.
    let avFrame: UnsafeMutablePointer<AVFrame>
}

/// The recorder's seam between capture and encoding: captured frames go in, masked frames
/// come out in capture order, possibly some frames later (a delay line), never unmasked.
public protocol LiveFrameMasking: AnyObject {
    /// Takes a captured frame and hands every frame that is now masked to `emit`, oldest
    /// first: none, this one, or several held earlier.
    func push(_ frame: CapturedFrame, emit: (MaskedFrame) throws -> Void) throws
    /// Masks and hands out every frame still held (the capture session ended).
    func finish(emit: (MaskedFrame) throws -> Void) throws
}

/// Builds the live privacy pass for frames of one size, on the recording thread.
public typealias LiveMaskingFactory = @Sendable (_ width: Int, _ height: Int) throws -> any LiveFrameMasking

/// The explicit opt-out (`privacy: none`) as a live pass: each frame leaves at once, unchanged.
public final class UnmaskedPassThrough: LiveFrameMasking {
    public init() {}

    public func push(_ frame: CapturedFrame, emit: (MaskedFrame) throws -> Void) throws {
        try emit(MaskedFrame(picture: frame.picture, captureTimeMs: frame.captureTimeMs, maskedBoxes: [], avFrame: frame.avFrame))
    }

    public func finish(emit: (MaskedFrame) throws -> Void) throws {}
}
