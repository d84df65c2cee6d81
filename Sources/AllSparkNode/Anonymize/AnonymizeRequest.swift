/// What `allspark-node anonymize` was asked to do.
public struct AnonymizeRequest: Sendable {
    public var inputPath: String
    public var outputPath: String
    /// Where to write the masked rectangles (`BoxesLog`), if anywhere.
    public var boxesPath: String?
    /// `.face` or `.body`; `.none` is refused (there would be nothing to do).
    public var mode: PrivacyMode
    public var style: MaskStyle
    public var detector: FaceDetectorChoice
    /// The face net's model; nil for the installed one.
    public var modelPath: String?
    public var cascadeDirectory: String

    public init(
        inputPath: String, outputPath: String, boxesPath: String? = nil, mode: PrivacyMode = .face,
        style: MaskStyle = .mosaic, detector: FaceDetectorChoice = .auto, modelPath: String? = nil,
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory
    ) {
        self.detector = detector
        self.modelPath = modelPath
        self.inputPath = inputPath
        self.outputPath = outputPath
        self.boxesPath = boxesPath
        self.mode = mode
        self.style = style
        self.cascadeDirectory = cascadeDirectory
    }
}

/// One step done: a frame of a video, or an image (written or skipped).
public struct AnonymizeProgress: Sendable {
    /// Frames or images handled so far, this one included.
    public let done: Int
    /// Images in the folder; nil for a video (its length is not known in advance).
    public let total: Int?
    /// The image's file name, or the frame's index.
    public let item: String
    public let boxesMasked: Int
    /// Why this image was skipped, if it was.
    public let skipReason: String?
}

/// What a finished run did.
public struct AnonymizeSummary: Sendable {
    public let itemsWritten: Int
    public let itemsSkipped: Int
    public let counters: PrivacyCounters.Snapshot
    /// The detectors that searched (`DetectorSetup.name`) and why they are weaker than
    /// they could be, if they are.
    public let detector: String
    public let weakerDetectorReason: String?
}
