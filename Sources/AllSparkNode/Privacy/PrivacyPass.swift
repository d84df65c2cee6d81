import Logging

/// Chooses the privacy pass for the configured mode before recording starts, and fails
/// closed: a face mode whose cascades cannot load refuses to start the node.
public struct PrivacyPass: Sendable {
    public let mode: PrivacyMode
    public let counters: PrivacyCounters
    public let makeMasker: @Sendable () throws -> FrameMasking

    /// - Parameter detectionWidth: frames wider than this are shrunk before the face search.
    public init(
        mode name: String, detectionWidth: Int = FaceDetectionSettings().maxDetectionWidth,
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory, logger: Logger
    ) throws {
        guard let mode = PrivacyMode(rawValue: name) else {
            throw ConfigError.invalidValue(
                key: "privacy", value: name, allowed: "one of " + PrivacyMode.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self.mode = mode
        let counters = PrivacyCounters()
        self.counters = counters
        if mode == .none {
            logger.warning("PRIVACY IS OFF (privacy: none): faces are recorded unmasked. Set privacy: face to mask them.")
        } else {
            // Load the cascades once now, so a missing one stops the node before it records anything.
            _ = try mode.makeFrameMasking(cascadeDirectory: cascadeDirectory, detectionWidth: detectionWidth, counters: counters)
            logger.info("privacy: \(mode.rawValue) masking with cascades from \(cascadeDirectory), detecting at ≤ \(detectionWidth) px wide")
        }
        makeMasker = {
            try mode.makeFrameMasking(cascadeDirectory: cascadeDirectory, detectionWidth: detectionWidth, counters: counters)
        }
    }
}
