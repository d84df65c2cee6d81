/// Why privacy masking could not be set up or could not run.
public enum PrivacyError: Error, Equatable, CustomStringConvertible {
    /// A cascade file is missing or is not a cascade; the node must not start without it.
    case cascadeUnavailable(path: String, reason: String)
    /// The face model is missing or is not CenterFace; the node must not start without it.
    case modelUnavailable(path: String, reason: String)
    /// Settings that could never work (for example a scale factor of 1 or less).
    case invalidSettings(String)
    /// An OpenCV detector could not be created.
    case detectorUnavailable(String)
    /// Detection failed on one frame.
    case detectionFailed(String)

    public var description: String {
        switch self {
        case let .cascadeUnavailable(path, reason):
            "cannot load face cascade \(path): \(reason)"
        case let .modelUnavailable(path, reason):
            "cannot load face model \(path): \(reason)"
        case let .invalidSettings(message):
            "invalid privacy settings: \(message)"
        case let .detectorUnavailable(message):
            "cannot create detector: \(message)"
        case let .detectionFailed(message):
            "detection failed: \(message)"
        }
    }
}
