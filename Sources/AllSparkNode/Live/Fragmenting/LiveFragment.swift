import NIOCore

/// One encoded frame as fragmented MP4 (moof + mdat), with the capture time of its frame.
/// The bytes are a ByteBuffer so every viewer sends the same storage without copying it.
struct LiveFragment: Sendable {
    let sequence: UInt64
    let session: Int
    let captureMs: Int64
    let durationMs: Int64
    let isKeyframe: Bool
    let mp4: ByteBuffer
}

/// The start of one encoder session for fMP4 viewers: its init segment (ftyp + moov).
struct LiveSessionStart: Sendable {
    let parameters: LiveStreamParameters
    let initializationSegment: ByteBuffer
    /// The codecs string MSE and HLS name the stream by, e.g. avc1.64001f.
    let codecs: String
}
