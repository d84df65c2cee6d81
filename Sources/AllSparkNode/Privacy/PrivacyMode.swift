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
    /// The detectors this mode searches every frame with; none for `.none`.
    /// - Throws: `PrivacyError.cascadeUnavailable` naming a cascade that cannot load.
    func makeDetectors(faces: FaceDetectionSettings) throws(PrivacyError) -> [any RegionDetector] {
        switch self {
        case .none: []
        case .face: [try FaceDetector(settings: faces)]
        case .body: [try FaceDetector(settings: faces), try PeopleDetector()]
        }
    }

    /// Builds the per-frame masker for this mode (detection on every frame, for `anonymize`).
    /// - Throws: `PrivacyError.cascadeUnavailable` naming a cascade in `cascadeDirectory`
    ///   that cannot load; never for `.none`.
    public func makeFrameMasking(
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory,
        detectionWidth: Int = FaceDetectionSettings().maxDetectionWidth,
        settings: FaceMasker.Settings = FaceMasker.Settings(),
        counters: PrivacyCounters = PrivacyCounters()
    ) throws(PrivacyError) -> any FrameMasking {
        guard self != .none else { return NoMasking() }
        let faces = FaceDetectionSettings(cascadeDirectory: cascadeDirectory, maxDetectionWidth: detectionWidth)
        return try FaceMasker(detectors: makeDetectors(faces: faces), settings: settings, counters: counters)
    }
}
