/// Builds the masker `anonymize` uses: a `FaceMasker`, whose `lastMaskedBoxes` the boxes
/// log records.
enum AnonymizingMasker {
    static func counters(for request: AnonymizeRequest) -> PrivacyCounters {
        let setup = request.detectorSetup
        return PrivacyCounters(detector: setup.name, weakerDetectorReason: setup.weakerDetectorReason)
    }

    /// - Parameter holdFrames: 0 for images (each stands alone); the recorder's default for
    ///   video, so a face the cascades miss for a few frames stays masked.
    static func make(for request: AnonymizeRequest, holdFrames: Int, counters: PrivacyCounters) throws -> FaceMasker {
        guard request.mode != .none else {
            throw PrivacyError.invalidSettings("anonymize needs privacy face or body, not none")
        }
        let settings = FaceMasker.Settings(holdFrames: holdFrames, style: request.style)
        let masking = try request.detectorSetup.makeFrameMasking(settings: settings, counters: counters)
        guard let masker = masking as? FaceMasker else {
            throw PrivacyError.invalidSettings("privacy \(request.mode.rawValue) has no box-reporting masker")
        }
        return masker
    }
}

extension AnonymizeRequest {
    var detectorSetup: DetectorSetup {
        DetectorSetup(mode: mode, choice: detector, modelPath: modelPath, cascadeDirectory: cascadeDirectory)
    }
}
