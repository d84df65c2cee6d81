import Testing

@testable import AllSparkNode

@Suite("Privacy: masking a real face")
struct PrivacyFaceMaskingTests {
    /// The same photo as it is, enlarged three times past the detection width (so detection
    /// runs on a shrunk copy), and cropped to odd dimensions (4:2:0 with a half chroma
    /// column and row).
    enum Variant: String, CaseIterable, Sendable {
        case original
        case tripled
        case oddSized

        var filter: String? {
            switch self {
            case .original: nil
            case .tripled: "scale=iw*3:ih*3"
            case .oddSized: "crop=w=iw-2-mod(iw+1\\,2):h=ih-2-mod(ih+1\\,2):x=2:y=2:exact=1"
            }
        }

        func place(_ label: PixelRect) -> PixelRect {
            switch self {
            case .original: label
            case .tripled: PixelRect(x: label.x * 3, y: label.y * 3, width: label.width * 3, height: label.height * 3)
            case .oddSized: PixelRect(x: label.x - 2, y: label.y - 2, width: label.width, height: label.height)
            }
        }
    }

    @Test(arguments: Variant.allCases)
    func pixelatesTheLabeledFaceAndNothingElse(variant: Variant) throws {
        let face = try LargeFace.find()
        let picture = try TestFrame.decode(face.path, filter: variant.filter)
        if variant == .oddSized {
            try #require(picture.width % 2 == 1 && picture.height % 2 == 1)
        }
        if variant == .tripled {
            try #require(picture.width > FaceDetectionSettings().maxDetectionWidth)
        }
        let label = variant.place(face.label).clamped(toWidth: picture.width, height: picture.height)
        let before = picture.bytes
        let detailBefore = picture.detailEnergy(in: label)
        let differingBefore = picture.differingPairShare(in: label)
        let masker = try FaceMasker()

        masker.mask(picture.frame, captureTimeMs: 0)

        let boxes = masker.lastMaskedBoxes
        #expect(coverage(of: label, by: boxes) >= 0.9, "label \(label), masked \(boxes)")
        // Nearly every neighbouring pair in a photo differs; in a mosaic only pairs that
        // straddle a block edge do.
        let differingAfter = picture.differingPairShare(in: label)
        #expect(differingBefore > 0.5)
        #expect(differingAfter < 0.1, "differing pairs \(differingBefore) -> \(differingAfter)")
        // The steps between blocks keep some gradient (about 0.3 here), the fine detail
        // none of its own.
        let detailAfter = picture.detailEnergy(in: label)
        #expect(Double(detailAfter) < 0.4 * Double(detailBefore), "detail \(detailBefore) -> \(detailAfter)")
        #expect(picture.changesOutside(boxes, comparedTo: before) == 0)
        let counters = masker.counters.snapshot()
        #expect(counters.frames == 1)
        #expect(counters.framesWithFaces == 1)
        #expect(counters.facesMasked == boxes.count)
        #expect(counters.framesFailedClosed == 0)
        #expect(counters.lastDetectionMs > 0)
    }

    @Test func bodyModeAlsoMasksTheFace() throws {
        let face = try LargeFace.find()
        let picture = try TestFrame.decode(face.path)
        let before = picture.bytes
        let counters = PrivacyCounters()
        let masker = try DetectorSetup(mode: .body, choice: .cascades).makeFrameMasking(counters: counters)

        try masker.mask(picture.frame, captureTimeMs: 0)

        let boxes = try #require(masker as? FaceMasker).lastMaskedBoxes
        #expect(coverage(of: face.label, by: boxes) >= 0.9)
        #expect(picture.changesOutside(boxes, comparedTo: before) == 0)
        #expect(counters.snapshot().framesFailedClosed == 0)
    }
}
