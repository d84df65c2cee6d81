/// The settings a running recorder picks up at its next chunk.
public struct RecordingSettings: Sendable, Equatable {
    public var videoFormat: VideoFormat
    public var chunkDurationMs: Int
    public var encoder: EncoderSettings
    public var fps: Double

    public init(_ config: NodeConfig) {
        videoFormat = config.videoFormat
        chunkDurationMs = config.videoChunkDurationMs
        encoder = config.encoder
        fps = config.fps
    }

    /// Frames in a chunk of full length.
    var framesPerChunk: Int { Int(Double(chunkDurationMs) / 1000 * fps) }
}
