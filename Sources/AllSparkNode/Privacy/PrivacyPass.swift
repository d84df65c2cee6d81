import Logging

/// Chooses the recorder's privacy pass before recording starts, and fails closed: a
/// detector whose model or cascades cannot load refuses to start the node.
///
/// Face and body modes mask through a `DelayLineMasker`: detection runs on its own thread
/// on as many frames as it keeps up with, faces are tracked between searches, and frames
/// wait in the delay line until a search at or after them is done.
public struct PrivacyPass: Sendable {
    public let detectors: DetectorSetup
    public let counters: PrivacyCounters
    /// Builds the pass for frames of one size, on the recording thread.
    public let makeMasker: LiveMaskingFactory

    public var mode: PrivacyMode { detectors.mode }

    public init(
        detectors: DetectorSetup, delayLine: DelayLineMasker.Settings = DelayLineMasker.Settings(), logger: Logger
    ) throws {
        self.detectors = detectors
        let counters = PrivacyCounters(
            detector: detectors.name, engine: detectors.engine, weakerDetectorReason: detectors.weakerDetectorReason,
            engineFallbackReason: detectors.engineFallbackReason)
        self.counters = counters
        guard detectors.mode != .none else {
            logger.warning("PRIVACY IS OFF (privacy: none): faces are recorded unmasked. Set privacy: face to mask them.")
            makeMasker = { _, _ in UnmaskedPassThrough() }
            return
        }
        if let reason = detectors.weakerDetectorReason {
            logger.warning("PRIVACY DEGRADED: \(reason)")
        }
        if let reason = detectors.engineFallbackReason {
            logger.warning("face search slower: \(reason)")
        }
        // Load every detector once now, so a missing file stops the node before it records anything.
        _ = try detectors.makeDetectors()
        // The trial loads (and the engine's) are freed: their pages go back now, not at peak RSS.
        MallocTuning.returnFreedMemory()
        logger.info("""
            privacy: \(detectors.mode.rawValue) masking with \(detectors.name) on \(detectors.engine.name), searching at ≤ \(detectors.net.maxDetectionWidth) px wide \
            \(delayLine.searchesEveryFrame ? "every frame" : "as many frames as it keeps up with, tracking faces in between")
            """)
        makeMasker = { width, height in
            try DelayLineMasker(width: width, height: height, settings: delayLine, counters: counters) {
                try detectors.makeDetectors()
            }
        }
    }

    /// The pass the configuration asks for.
    public init(config: NodeConfig, logger: Logger) throws {
        guard let mode = PrivacyMode(rawValue: config.privacy) else {
            throw ConfigError.invalidValue(
                key: "privacy", value: config.privacy, allowed: "one of " + PrivacyMode.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard let choice = FaceDetectorChoice(rawValue: config.privacyDetector) else {
            throw ConfigError.invalidValue(
                key: "privacyDetector", value: config.privacyDetector,
                allowed: "one of " + FaceDetectorChoice.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard let style = MaskStyle(rawValue: config.privacyMask) else {
            throw ConfigError.invalidValue(
                key: "privacyMask", value: config.privacyMask, allowed: "one of " + MaskStyle.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard let engine = FaceNetEngineChoice(rawValue: config.privacyEngine) else {
            throw ConfigError.invalidValue(
                key: "privacyEngine", value: config.privacyEngine,
                allowed: "one of " + FaceNetEngineChoice.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let detectors = DetectorSetup(
            mode: mode, choice: choice, modelPath: config.faceModelFile, detectionWidth: config.privacyDetectionWidth,
            engine: engine, engineLibrary: config.onnxRuntimeLibrary)
        try self.init(
            detectors: detectors,
            delayLine: DelayLineMasker.Settings(
                fps: config.fps, searchesEveryFrame: config.privacyEveryFrame, style: style,
                minimumRegionWidth: config.privacyDetectionWidth, lookbackMs: Int64(config.privacyLookbackMs),
                guardsEdges: config.privacyEdgeGuard, busySearchStride: config.privacyBusySearchStride,
                realTimeSource: CaptureSettings(config).source.isLive || config.pace),
            logger: logger)
    }
}
