import Foundation
import Testing

@testable import AllSparkNode

/// A face that comes into view, through the recorder's own privacy pass as the node builds
/// it by default (the installed YuNet model, the default delay line).
@Suite("Privacy: a face that appears", .serialized)
struct PrivacyAppearingFaceTests {
    @Test("a face that appears is masked from its first frame, at the default settings", arguments: [12, 31])
    func maskedFromItsFirstFrame(appearsAt firstFaceFrame: Int) throws {
        let dataset = try FaceDataset()
        let chosen = try PrivacyEdgeTests.wholeFaces(count: 2, dataset: dataset)
        try #require(chosen.count == 2)
        for (image, label) in chosen {
            let face = try TestFrame.decode(dataset.path(of: image))
            // The same photo with nothing a detector takes for a face: what the camera saw before.
            let before = try TestFrame.decode(dataset.path(of: image), filter: "boxblur=24:4")
            try #require(try before.faces(using: FaceNetDetector()).allSatisfy { $0.intersectionOverUnion(label) < 0.3 })
            let pass = try PrivacyPass(detectors: DetectorSetup(mode: .face), logger: .init(label: "test"))
            let masker = try #require(try pass.makeMasker(face.width, face.height) as? DelayLineMasker)
            var released: [[PixelRect]] = []
            let collect = { (frame: MaskedFrame) in released.append(frame.maskedBoxes) }
            for index in 0..<(firstFaceFrame + 20) {
                let picture = index < firstFaceFrame ? before : face
                try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect)
                usleep(33_000)
            }
            try masker.finish(emit: collect)

            try #require(released.count == firstFaceFrame + 20)
            let exposed = (firstFaceFrame..<released.count).filter { coverage(of: label, by: released[$0]) < 0.5 }
            #expect(exposed.isEmpty, "\(image): frames showing the face (first at \(firstFaceFrame)): \(exposed)")
        }
    }
}
