/// How `FaceNetDetector` searches a frame.
public struct FaceNetSettings: Sendable, Equatable {
    public var model: FaceNetModel
    public var modelPath: String
    /// Wider frames are shrunk to this width (rounded up to a multiple of 32) before the
    /// search. At 640 the nets still find faces 48 px wide in a 1280x720 frame.
    public var maxDetectionWidth: Int
    /// Scores above this are faces (the model's own default unless set).
    public var scoreThreshold: Float
    /// Boxes overlapping more than this (IoU) are one face.
    public var overlapThreshold: Float
    /// Result buffer size. A search that finds more fails, and the frame is masked whole.
    public var maxFaces: Int

    public init(
        model: FaceNetModel = .yuNet, modelPath: String? = nil, maxDetectionWidth: Int = 640,
        scoreThreshold: Float? = nil, overlapThreshold: Float = 0.3, maxFaces: Int = 256
    ) {
        self.model = model
        self.modelPath = modelPath ?? model.installedPath
        self.maxDetectionWidth = maxDetectionWidth
        self.scoreThreshold = scoreThreshold ?? model.scoreThreshold
        self.overlapThreshold = overlapThreshold
        self.maxFaces = maxFaces
    }

    func validate() throws(PrivacyError) {
        guard maxDetectionWidth >= 32 else { throw .invalidSettings("detection width \(maxDetectionWidth) is below 32 px") }
        guard scoreThreshold > 0, scoreThreshold < 1 else {
            throw .invalidSettings("face score threshold \(scoreThreshold) is outside 0...1")
        }
        guard overlapThreshold > 0, overlapThreshold <= 1 else {
            throw .invalidSettings("face overlap threshold \(overlapThreshold) is outside 0...1")
        }
        guard (1...Int(Int32.max)).contains(maxFaces) else { throw .invalidSettings("max faces \(maxFaces) is out of range") }
    }

    /// The net's input size for a region `width` x `height`: at most `maxDetectionWidth`
    /// wide, the region's aspect kept, both sides rounded to the nearest multiple of 32 as
    /// the nets require (720p searched at 640x352, not 640x384: 8% less work for a 2%
    /// squash the nets do not notice).
    /// With `scale`, the region is shrunk to that many input pixels per frame pixel instead,
    /// wider than `maxDetectionWidth` if need be: the caller asked for that scale (the delay
    /// line searches a whole 1080p frame at half scale, 960x544, `SearchPlan`).
    func inputSize(forWidth width: Int, height: Int, scale: Double? = nil) -> (width: Int, height: Int) {
        let scaledWidth = scale.map { max(32, Int((Double(width) * min($0, 1)).rounded())) } ?? min(width, maxDetectionWidth)
        let scaledHeight = max(1, Int((Double(height) * Double(scaledWidth) / Double(width)).rounded()))
        return (Self.roundedTo32(scaledWidth), Self.roundedTo32(scaledHeight))
    }

    private static func roundedTo32(_ value: Int) -> Int { max(32, (value + 16) / 32 * 32) }
}
