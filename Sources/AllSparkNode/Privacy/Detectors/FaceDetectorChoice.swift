import Foundation

/// Which face detector the privacy pass searches with (`privacyDetector`).
public enum FaceDetectorChoice: String, Sendable, CaseIterable {
    /// The best face net installed (YuNet, else CenterFace), else the cascades (with a warning).
    case auto
    /// The best face net installed; the node does not start without one.
    case dnn
    /// YuNet through OpenCV's dnn module.
    case yunet
    /// CenterFace through OpenCV's dnn module.
    case centerface
    /// OpenCV's Haar cascades: frontal face and profiles both ways.
    case cascades
    /// The best face net and the cascades: whatever either finds is masked.
    case both
}

/// The detectors of one run, chosen once before anything is recorded: `auto` resolved,
/// every file checked by the detectors' own loading (fail closed).
public struct DetectorSetup: Sendable {
    /// Which face detectors run after `auto` is resolved.
    public enum Faces: Sendable, Equatable {
        case net
        case cascades
        case both
    }

    public let mode: PrivacyMode
    public let faces: Faces
    public let cascades: FaceDetectionSettings
    public let net: FaceNetSettings
    /// Why this run searches with a weaker detector than it could (`auto` found no model):
    /// a warning at every start and a `degraded` health.
    public let weakerDetectorReason: String?
    /// What runs the face net, and why it is OpenCV's dnn when ONNX Runtime was wanted:
    /// one warning at start (the search is slower, never weaker).
    public let engine: FaceNetEngine
    public let engineFallbackReason: String?
    /// Set when `privacyEngine: onnxruntime` cannot be had: the node refuses to start.
    private let requiredEngineMissing: String?

    /// - Parameter modelPath: the face net's model file (`privacyModel`); nil for the
    ///   installed one. For `auto`, `dnn` and `both` its checksum tells which net it holds.
    public init(
        mode: PrivacyMode, choice: FaceDetectorChoice = .auto, modelPath: String? = nil,
        cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory,
        detectionWidth: Int = FaceDetectionSettings().maxDetectionWidth,
        engine engineChoice: FaceNetEngineChoice = .auto, engineLibrary: String? = nil
    ) {
        self.mode = mode
        cascades = FaceDetectionSettings(cascadeDirectory: cascadeDirectory, maxDetectionWidth: detectionWidth)
        let model: FaceNetModel
        switch choice {
        case .yunet: model = .yuNet
        case .centerface: model = .centerFace
        case .auto, .dnn, .cascades, .both:
            model = modelPath.map(FaceNetModel.identified(byContentsOf:)) ?? Self.bestInstalledNet
        }
        net = FaceNetSettings(model: model, modelPath: modelPath, maxDetectionWidth: detectionWidth)
        switch choice {
        case .auto where FileManager.default.fileExists(atPath: net.modelPath):
            faces = .net
            weakerDetectorReason = nil
        case .auto:
            faces = .cascades
            weakerDetectorReason = """
                no face model at \(modelPath ?? FaceNetModel.yuNet.installedPath) (run scripts/setup.sh): masking with the Haar \
                cascades, which miss turned, tilted and small faces that the DNN finds
                """
        case .dnn, .yunet, .centerface:
            faces = .net
            weakerDetectorReason = nil
        case .cascades:
            faces = .cascades
            weakerDetectorReason = nil
        case .both:
            faces = .both
            weakerDetectorReason = nil
        }
        if mode == .none || faces == .cascades {
            (engine, engineFallbackReason, requiredEngineMissing) = (.openCV, nil, nil)
        } else {
            let resolved = FaceNetEngine.resolve(engineChoice, net: net, library: engineLibrary)
            engine = resolved.engine
            let missing = engineChoice == .onnxruntime ? resolved.fallbackReason : nil
            (engineFallbackReason, requiredEngineMissing) = (missing == nil ? resolved.fallbackReason : nil, missing)
        }
    }

    /// YuNet where its model is installed, else CenterFace.
    static var bestInstalledNet: FaceNetModel {
        FileManager.default.fileExists(atPath: FaceNetModel.yuNet.installedPath) ? .yuNet : .centerFace
    }

    /// What `/api/status` and the logs call the detectors.
    public var name: String {
        switch mode {
        case .none: "none"
        case .face: facesName
        case .body: facesName + "+people"
        }
    }

    private var facesName: String {
        switch faces {
        case .net: net.model.rawValue
        case .cascades: "cascades"
        case .both: net.model.rawValue + "+cascades"
        }
    }

    /// New detectors for one thread (none for `privacy: none`).
    /// - Throws: `PrivacyError.modelUnavailable` or `.cascadeUnavailable` naming the file
    ///   that cannot load.
    func makeDetectors() throws(PrivacyError) -> [any RegionDetector] {
        guard mode != .none else { return [] }
        if let requiredEngineMissing { throw .detectorUnavailable("privacyEngine: onnxruntime: \(requiredEngineMissing)") }
        var detectors: [any RegionDetector] = []
        if faces != .cascades { detectors.append(try FaceNetDetector(settings: net, engine: engine)) }
        if faces != .net { detectors.append(try CascadeFaceDetector(settings: cascades)) }
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
