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
    /// Why the store takes no chunks (disk full, vanished, read-only, a write error); nil
    /// while chunks are written.
    public var storeError: String?
    /// Frames are being dropped until the store can take a chunk again.
    public var storeWaiting = false
    /// Waits that began because the disk had no room for a chunk.
    public var storeFullEvents = 0
    /// Waits that began because the store vanished, turned read-only or failed to write.
    public var storeUnavailableEvents = 0
    /// Chunks that could not start (the first try and each retry of a wait).
    public var chunkStartFailures = 0
    /// Frames dropped while waiting for the store (also counted in `framesDropped`).
    public var framesDroppedForStore = 0
    public var lastFrameCaptureMs: Int64?
    public var lastFrameMonotonicMs: Int64?
    public var framesCaptured = 0
    public var framesDropped = 0
    /// When the source last dropped a frame the node could not take in time (monotonic ms).
    public var lastCaptureDropMonotonicMs: Int64?
    public var framesEncoded = 0
    public var chunksWritten = 0
    /// Chunks ended before their length so that a request could have their footage at once.
    public var chunksCutEarly = 0
    public var lastChunk: ChunkRecord?
    /// Set when the recorder stopped for good (end of a non-looping file, or a fatal error).
    public var finished = false

    public init() {}
}
