import Testing

@testable import AllSparkNode

@Suite("Privacy: modes")
struct PrivacyModeTests {
    @Test func noneLeavesEveryByteUntouched() throws {
        let face = try LargeFace.find()
        let picture = try TestFrame.decode(face.path)
        let before = picture.bytes

        let masker = try DetectorSetup(mode: .none, modelPath: "/nonexistent", cascadeDirectory: "/nonexistent").makeFrameMasking()
        try masker.mask(picture.frame, captureTimeMs: 0)

        #expect(masker is NoMasking)
        #expect(picture.bytes == before)
    }

    @Test func modesParseFromConfigurationText() {
        #expect(PrivacyMode(rawValue: "face") == .face)
        #expect(PrivacyMode(rawValue: "body") == .body)
        #expect(PrivacyMode(rawValue: "none") == PrivacyMode.none)
        #expect(PrivacyMode(rawValue: "faces") == nil)
    }

    @Test func faceModeBuildsAFaceMaskerSharingTheCounters() throws {
        let counters = PrivacyCounters()
        let masker = try DetectorSetup(mode: .face, choice: .cascades).makeFrameMasking(counters: counters)
        #expect((masker as? FaceMasker)?.counters === counters)
    }
}
