/// How `CascadeFaceDetector` searches a frame.
public struct FaceDetectionSettings: Sendable, Equatable {
    /// One pass of one cascade over the detection image.
    public struct Pass: Sendable, Equatable {
        /// A file name inside `cascadeDirectory`.
        public var cascadeFile: String
        /// Search the left-right mirrored image: one-sided cascades (profileface) then
        /// find faces turned the other way.
        public var mirrored: Bool

        public init(cascadeFile: String, mirrored: Bool = false) {
            self.cascadeFile = cascadeFile
            self.mirrored = mirrored
        }
    }

    /// Where Debian's opencv-data installs the Haar cascades.
    public static let defaultCascadeDirectory = "/usr/share/opencv4/haarcascades"

    /// Frontal faces plus profiles turned either way.
    public static let defaultPasses: [Pass] = [
        Pass(cascadeFile: "haarcascade_frontalface_default.xml"),
        Pass(cascadeFile: "haarcascade_profileface.xml"),
        Pass(cascadeFile: "haarcascade_profileface.xml", mirrored: true),
    ]

    public var cascadeDirectory: String
    public var passes: [Pass]
    /// Wider frames are shrunk to this width before the search (cost grows with area);
    /// faces smaller than `minFaceSize` at this scale are not found.
    public var maxDetectionWidth: Int
    /// `detectMultiScale` step between search scales; must be above 1.
    public var scaleFactor: Double
    /// Overlapping hits needed to accept a face; lower finds more and errs more.
    public var minNeighbors: Int
    /// Smallest face searched, in pixels of the (possibly shrunk) detection image.
    public var minFaceSize: Int
    /// Result buffer size per pass. A pass that finds more fails, and the frame is then
    /// masked whole rather than partly.
    public var maxFacesPerPass: Int

    public init(
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory,
        passes: [Pass] = FaceDetectionSettings.defaultPasses,
        maxDetectionWidth: Int = 640,
        scaleFactor: Double = 1.1,
        minNeighbors: Int = 3,
        minFaceSize: Int = 24,
        maxFacesPerPass: Int = 256
    ) {
        self.cascadeDirectory = cascadeDirectory
        self.passes = passes
        self.maxDetectionWidth = maxDetectionWidth
        self.scaleFactor = scaleFactor
        self.minNeighbors = minNeighbors
        self.minFaceSize = minFaceSize
        self.maxFacesPerPass = maxFacesPerPass
    }

    /// The full path of a cascade file.
    public func path(of cascadeFile: String) -> String {
        cascadeDirectory.hasSuffix("/") ? cascadeDirectory + cascadeFile : cascadeDirectory + "/" + cascadeFile
    }

    func validate() throws(PrivacyError) {
        guard !passes.isEmpty else { throw .invalidSettings("no cascade passes") }
        guard scaleFactor > 1 else { throw .invalidSettings("scale factor \(scaleFactor) must be above 1") }
        guard minNeighbors >= 0 else { throw .invalidSettings("min neighbors \(minNeighbors) is negative") }
        guard minFaceSize >= 1 else { throw .invalidSettings("min face size \(minFaceSize) is below 1") }
        guard (1...Int(Int32.max)).contains(maxFacesPerPass) else {
            throw .invalidSettings("max faces per pass \(maxFacesPerPass) is out of range")
        }
    }
}
