import Foundation

/// Which face detector the privacy pass searches with (`privacyDetector`).
public enum FaceDetectorChoice: String, Sendable, CaseIterable {
    /// The net when its model is installed, else the cascades (with a warning).
    case auto
    /// CenterFace through OpenCV's dnn module.
    case dnn
    /// OpenCV's Haar cascades: frontal face and profiles both ways.
    case cascades
    /// Both: whatever either finds is masked.
    case both
}

/// The detectors of one run, chosen once before anything is recorded: `auto` resolved,
/// every file checked by the detectors' own loading (fail closed).
public struct DetectorSetup: Sendable {
    /// Which face detectors run after `auto` is resolved.
    public enum Faces: String, Sendable {
        case dnn
        case cascades
        case both = "dnn+cascades"
    }

    public let mode: PrivacyMode
    public let faces: Faces
    public let cascades: FaceDetectionSettings
    public let net: FaceNetSettings
    /// Why this run searches with a weaker detector than it could (`auto` found no model):
    /// a warning at every start and a `degraded` health.
    public let weakerDetectorReason: String?

    public init(
        mode: PrivacyMode, choice: FaceDetectorChoice = .auto, modelPath: String = FaceNetSettings.defaultModelPath,
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory,
        detectionWidth: Int = FaceDetectionSettings().maxDetectionWidth
    ) {
        self.mode = mode
        cascades = FaceDetectionSettings(cascadeDirectory: cascadeDirectory, maxDetectionWidth: detectionWidth)
        net = FaceNetSettings(modelPath: modelPath, maxDetectionWidth: detectionWidth)
        switch choice {
        case .auto where FileManager.default.fileExists(atPath: modelPath):
            faces = .dnn
            weakerDetectorReason = nil
        case .auto:
            faces = .cascades
            weakerDetectorReason = """
                no face model at \(modelPath) (run scripts/setup.sh): masking with the Haar cascades, \
                which miss turned, tilted and small faces that the DNN finds
                """
        case .dnn:
            faces = .dnn
            weakerDetectorReason = nil
        case .cascades:
            faces = .cascades
            weakerDetectorReason = nil
        case .both:
            faces = .both
            weakerDetectorReason = nil
        }
    }

    /// What `/api/status` and the logs call the detectors.
    public var name: String {
        switch mode {
        case .none: "none"
        case .face: faces.rawValue
        case .body: faces.rawValue + "+people"
        }
    }

    /// New detectors for one thread (none for `privacy: none`).
    /// - Throws: `PrivacyError.modelUnavailable` or `.cascadeUnavailable` naming the file
    ///   that cannot load.
    func makeDetectors() throws(PrivacyError) -> [any RegionDetector] {
        guard mode != .none else { return [] }
        var detectors: [any RegionDetector] = []
        if faces != .cascades { detectors.append(try FaceNetDetector(settings: net)) }
        if faces != .dnn { detectors.append(try CascadeFaceDetector(settings: cascades)) }
        if mode == .body { detectors.append(try PeopleDetector()) }
        return detectors
    }

    /// The per-frame masker (every frame searched, for `anonymize` and tests).
    /// - Throws: as `makeDetectors`; never for `privacy: none`.
    public func makeFrameMasking(
        settings: FaceMasker.Settings = FaceMasker.Settings(), counters: PrivacyCounters = PrivacyCounters()
    ) throws(PrivacyError) -> any FrameMasking {
        guard mode != .none else { return NoMasking() }
        return try FaceMasker(detectors: makeDetectors(), settings: settings, counters: counters)
    }
}
