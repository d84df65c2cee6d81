/// Everything the node can be told, with the defaults documented in config/allspark-node.yaml.
public struct NodeConfig: Sendable, Equatable {
    /// `auto` (first camera, else the test pattern), a device path, a media file, or `testsrc`.
    public var source: String = "auto"
    /// Output picture size; 0 keeps the source's own size.
    public var width: Int = 1280
    public var height: Int = 720
    public var fps: Double = 30
    /// Files loop forever unless this is false (then the node stops at the end of the file).
    public var loop: Bool = true
    /// Files and the test pattern are paced at real time unless this is false.
    public var pace: Bool = true

    public var storeDirectory: String = "./data"
    public var videoFormat: VideoFormat = .mp4
    public var videoChunkDurationMs: Int = 30_000
    /// Store cap in MiB; fractions allowed for tests with tiny caps.
    public var videoBufferMaxMB: Double = 4096

    public var encoder = EncoderSettings()
    public var privacy: String = "face"

    public init() {}

    public var capBytes: Int64 { Int64(videoBufferMaxMB * 1024 * 1024) }
}

public enum VideoFormat: String, Sendable, CaseIterable {
    case mp4
    case mov

    public var mimeType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        }
    }
}

public struct EncoderSettings: Sendable, Equatable {
    /// libavcodec encoder name; hardware encoders fall back to libx264 when they cannot open.
    public var codec: String = "libx264"
    public var preset: String = "veryfast"
    /// Constant rate factor; used when `bitrateKbps` is 0.
    public var crf: Int = 23
    public var bitrateKbps: Int = 0
    /// Keyframe interval; also the crash-loss window, since fragments start at keyframes.
    public var keyframeIntervalMs: Int = 1000

    public init() {}
}
