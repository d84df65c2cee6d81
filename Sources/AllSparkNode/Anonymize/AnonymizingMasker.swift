/// Builds the masker `anonymize` uses: a `FaceMasker`, whose `lastMaskedBoxes` the boxes
/// log records.
enum AnonymizingMasker {
    /// - Parameter holdFrames: 0 for images (each stands alone); the recorder's default for
    ///   video, so a face the cascades miss for a few frames stays masked.
    static func make(for request: AnonymizeRequest, holdFrames: Int, counters: PrivacyCounters) throws -> FaceMasker {
        guard request.mode != .none else {
            throw PrivacyError.invalidSettings("anonymize needs privacy face or body, not none")
        }
        let settings = FaceMasker.Settings(holdFrames: holdFrames, style: request.style)
        let masking = try request.mode.makeFrameMasking(
            cascadeDirectory: request.cascadeDirectory, settings: settings, counters: counters)
        guard let masker = masking as? FaceMasker else {
            throw PrivacyError.invalidSettings("privacy \(request.mode.rawValue) has no box-reporting masker")
        }
        return masker
    }
}
