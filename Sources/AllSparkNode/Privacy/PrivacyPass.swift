import Logging

/// Chooses the recorder's privacy pass for the configured mode before recording starts,
/// and fails closed: a face mode whose cascades cannot load refuses to start the node.
///
/// Face and body modes mask through a `DelayLineMasker`: detection runs on its own thread
/// on as many frames as it keeps up with, so a live camera keeps its frame rate on a
/// small machine, and frames wait in the delay line until a search at or after them says
/// what to mask.
public struct PrivacyPass: Sendable {
    public let mode: PrivacyMode
    public let counters: PrivacyCounters
    /// Builds the pass for frames of one size, on the recording thread.
    public let makeMasker: LiveMaskingFactory

    /// - Parameter detectionWidth: frames wider than this are shrunk before the face search.
    public init(
        mode name: String, detectionWidth: Int = FaceDetectionSettings().maxDetectionWidth,
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory,
        delayLine: DelayLineMasker.Settings = DelayLineMasker.Settings(), logger: Logger
    ) throws {
        guard let mode = PrivacyMode(rawValue: name) else {
            throw ConfigError.invalidValue(
                key: "privacy", value: name, allowed: "one of " + PrivacyMode.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self.mode = mode
        let counters = PrivacyCounters()
        self.counters = counters
        guard mode != .none else {
            logger.warning("PRIVACY IS OFF (privacy: none): faces are recorded unmasked. Set privacy: face to mask them.")
            makeMasker = { _, _ in UnmaskedPassThrough() }
            return
        }
        let faces = FaceDetectionSettings(cascadeDirectory: cascadeDirectory, maxDetectionWidth: detectionWidth)
        // Load the cascades once now, so a missing one stops the node before it records anything.
        _ = try mode.makeDetectors(faces: faces)
        logger.info("""
            privacy: \(mode.rawValue) masking with cascades from \(cascadeDirectory), detecting at ≤ \(detectionWidth) px wide \
            in \(delayLine.searchesEveryFrame ? "every frame" : "as many frames as it keeps up with")
            """)
        makeMasker = { width, height in
            try DelayLineMasker(width: width, height: height, settings: delayLine, counters: counters) {
                try mode.makeDetectors(faces: faces)
            }
        }
    }
}
