/// What the node masks before encoding (`privacy:` in the configuration).
public enum PrivacyMode: String, Sendable, CaseIterable {
    /// Faces: frontal and both profile directions (Haar cascades).
    case face
    /// Faces and whole upright people (adds OpenCV's HOG people detector; slower).
    case body
    /// The explicit opt-out: frames pass unchanged.
    case none
}

extension PrivacyMode {
    /// Builds the masker for this mode.
    /// - Throws: `PrivacyError.cascadeUnavailable` naming a cascade in `cascadeDirectory`
    ///   that cannot load; never for `.none`.
    public func makeFrameMasking(
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory,
        detectionWidth: Int = FaceDetectionSettings().maxDetectionWidth,
        settings: FaceMasker.Settings = FaceMasker.Settings(),
        counters: PrivacyCounters = PrivacyCounters()
    ) throws(PrivacyError) -> any FrameMasking {
        let faces = FaceDetectionSettings(cascadeDirectory: cascadeDirectory, maxDetectionWidth: detectionWidth)
        switch self {
        case .none:
            return NoMasking()
        case .face:
            return try FaceMasker(faceDetection: faces, settings: settings, counters: counters)
        case .body:
            let detectors: [any RegionDetector] = [try FaceDetector(settings: faces), try PeopleDetector()]
            return try FaceMasker(detectors: detectors, settings: settings, counters: counters)
        }
    }
}
