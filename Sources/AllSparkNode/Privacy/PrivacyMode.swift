/// What the node masks before encoding (`privacy:` in the configuration).
public enum PrivacyMode: String, Sendable, CaseIterable {
    /// Faces (`privacyDetector` says with which detector).
    case face
    /// Faces and whole upright people (adds OpenCV's HOG people detector; slower).
    case body
    /// The explicit opt-out: frames pass unchanged.
    case none
}
