/// What the recorder is doing, for logs, health checks and metrics.
public struct RecorderStatus: Sendable, Equatable {
    public var recording = false
    public var source = ""
    /// The last failure of the source, cleared by the next frame.
    public var sourceError: String?
    public var encoderName: String?
    /// Size of the frames being encoded.
    public var frameWidth = 0
    public var frameHeight = 0
    /// The last failure to create or write a chunk, cleared by the next chunk published.
    public var storeError: String?
    public var lastFrameCaptureMs: Int64?
    public var lastFrameMonotonicMs: Int64?
    public var framesCaptured = 0
    public var framesDropped = 0
    public var framesEncoded = 0
    public var chunksWritten = 0
    /// Chunks ended before their length so that a request could have their footage at once.
    public var chunksCutEarly = 0
    public var lastChunk: ChunkRecord?
    /// Set when the recorder stopped for good (end of a non-looping file, or a fatal error).
    public var finished = false

    public init() {}
}
