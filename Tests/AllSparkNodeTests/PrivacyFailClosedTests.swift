import Foundation
import Testing

@testable import AllSparkNode

@Suite("Privacy: failing closed")
struct PrivacyFailClosedTests {
    private func emptyDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("privacy-cascades-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func missingCascadeRefusesToStartAndNamesTheFile() throws {
        let directory = try emptyDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = directory.appendingPathComponent("haarcascade_frontalface_default.xml").path

        #expect(throws: PrivacyError.cascadeUnavailable(path: expected, reason: "no readable file at this path")) {
            try FaceMasker(faceDetection: FaceDetectionSettings(cascadeDirectory: directory.path))
        }
        do {
            _ = try DetectorSetup(mode: .face, choice: .cascades, cascadeDirectory: directory.path).makeFrameMasking()
            Issue.record("a masker was made without cascades")
        } catch {
            #expect(error.description.contains(expected))
        }
    }

    @Test func corruptCascadeRefusesToStartAndNamesTheFile() throws {
        let directory = try emptyDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let frontal = "haarcascade_frontalface_default.xml"
        try FileManager.default.copyItem(
            atPath: FaceDetectionSettings().path(of: frontal), toPath: directory.appendingPathComponent(frontal).path)
        let profile = directory.appendingPathComponent("haarcascade_profileface.xml")
        try Data("<opencv_storage><cascade>not a cascade".utf8).write(to: profile)

        do {
            _ = try CascadeFaceDetector(settings: FaceDetectionSettings(cascadeDirectory: directory.path))
            Issue.record("a detector was made with a corrupt cascade")
        } catch {
            guard case let .cascadeUnavailable(path, reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == profile.path)
            #expect(reason.hasPrefix("not a valid cascade"))
        }
    }

    /// A real runtime failure: a pass finds more faces than its result buffer holds.
    @Test func detectionFailureMasksTheWholeFrame() throws {
        let frontalOnly = FaceDetectionSettings(passes: [.init(cascadeFile: "haarcascade_frontalface_default.xml")])
        let dataset = try FaceDataset()
        let detector = try CascadeFaceDetector(settings: frontalOnly)
        var crowd: TestFrame?
        for image in dataset.images(where: { $0.count >= 3 }).prefix(20) {
            let picture = try TestFrame.decode(dataset.path(of: image))
            var found: [PixelRect] = []
            try detector.detect(in: picture.frame, appendingTo: &found)
            if found.count >= 2 {
                crowd = picture
                break
            }
        }
        let picture = try #require(crowd)
        let before = picture.bytes
        var oneFacePerPass = frontalOnly
        oneFacePerPass.maxFacesPerPass = 1
        let masker = try FaceMasker(faceDetection: oneFacePerPass)

        masker.mask(picture.frame, captureTimeMs: 0)

        let whole = PixelRect(x: 0, y: 0, width: picture.width, height: picture.height)
        #expect(masker.lastMaskedBoxes == [whole])
        #expect(picture.changesOutside([whole], comparedTo: before) == 0)
        let frame = picture.frame
        var unfilled = 0
        for y in 0..<picture.height {
            for x in 0..<picture.width where frame.y[y * frame.yStride + x] != MaskPainter.fillLuma {
                unfilled += 1
            }
        }
        for y in 0..<frame.chromaHeight {
            for x in 0..<frame.chromaWidth
            where frame.u[y * frame.uStride + x] != MaskPainter.fillChroma
                || frame.v[y * frame.vStride + x] != MaskPainter.fillChroma {
                unfilled += 1
            }
        }
        #expect(unfilled == 0)
        let counters = masker.counters.snapshot()
        #expect(counters.framesFailedClosed == 1)
        #expect(counters.lastFailure?.description.contains("more objects found") == true)
    }
}
