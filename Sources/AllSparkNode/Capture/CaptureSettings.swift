/// What the capture stage needs from the configuration.
public struct CaptureSettings: Sendable, Equatable {
    public var source: CaptureSource
    /// Output size; 0 keeps the source's size (the test pattern then uses 1280x720).
    public var width: Int
    public var height: Int
    public var fps: Double
    /// V4L2 input format (`input_format`), nil for the driver's default.
    public var cameraFormat: String?
    public var loop: Bool
    public var pace: Bool

    public init(source: CaptureSource, width: Int, height: Int, fps: Double, cameraFormat: String? = nil, loop: Bool, pace: Bool) {
        self.source = source
        self.width = width
        self.height = height
        self.fps = fps
        self.cameraFormat = cameraFormat
        self.loop = loop
        self.pace = pace
    }

    public init(_ config: NodeConfig) {
        self.init(
            source: CaptureSource.resolve(config.source), width: config.width, height: config.height,
            fps: config.fps, cameraFormat: config.cameraFormat == "auto" ? nil : config.cameraFormat,
            loop: config.loop, pace: config.pace)
    }

    var frameIntervalMs: Int64 { max(1, Int64((1000 / fps).rounded())) }
}
