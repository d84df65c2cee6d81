import Foundation
import Logging
import Testing

@testable import AllSparkNode

/// YuNet and CenterFace through OpenCV's dnn module, with the models `scripts/setup.sh` installs.
@Suite("Privacy: the DNN face detectors")
struct PrivacyFaceNetTests {
    /// Whether a detection counts as finding `label`, by the faces README's rule.
    private func finds(_ label: PixelRect, in boxes: [PixelRect]) -> Bool {
        boxes.contains { $0.intersectionOverUnion(label) >= 0.3 || coverage(of: label, by: [$0]) >= 0.5 }
    }

    @Test("each net finds the faces of dev photos that the cascades miss")
    func findsFacesTheCascadesMiss() throws {
        let dataset = try FaceDataset()
        let cascades = try CascadeFaceDetector()
        var missedByCascades: [(image: String, label: PixelRect, picture: TestFrame)] = []
        // The first single-face photos, in name order, whose face (48 px or wider) the cascades miss.
        for image in dataset.images(where: { $0.count == 1 && $0[0].width >= 48 }) where missedByCascades.count < 12 {
            let label = dataset.labels[image]![0]
            let picture = try TestFrame.decode(dataset.path(of: image))
            if !finds(label, in: try picture.faces(using: cascades)) {
                missedByCascades.append((image, label, picture))
            }
        }
        try #require(missedByCascades.count == 12)
        for model in FaceNetModel.allCases {
            let net = try FaceNetDetector(settings: FaceNetSettings(model: model))
            let foundByNet = try missedByCascades.filter { finds($0.label, in: try $0.picture.faces(using: net)) }
            #expect(foundByNet.count >= 10, "\(model) found \(foundByNet.count) of 12: missed \(missedByCascades.filter { m in !foundByNet.contains { $0.image == m.image } }.map(\.image))")
        }
    }

    @Test("boxes lie on the face: a large labeled face is found with a tight box", arguments: FaceNetModel.allCases)
    func boxesAreTight(model: FaceNetModel) throws {
        let face = try LargeFace.find()
        let picture = try TestFrame.decode(face.path)
        let found = try picture.faces(using: FaceNetDetector(settings: FaceNetSettings(model: model)))
        let best = try #require(found.max { $0.intersectionOverUnion(face.label) < $1.intersectionOverUnion(face.label) })
        #expect(best.intersectionOverUnion(face.label) >= 0.5, "label \(face.label), found \(found)")
    }

    @Test("searching a region finds the face there, in frame coordinates, and nothing outside it", arguments: FaceNetModel.allCases)
    func regionSearch(model: FaceNetModel) throws {
        let face = try LargeFace.find()
        let picture = try TestFrame.decode(face.path)
        let net = try FaceNetDetector(settings: FaceNetSettings(model: model))
        var inside: [PixelRect] = []
        try net.detect(in: picture.frame, within: face.label.grown(byFractionPerSide: 0.5), appendingTo: &inside)
        #expect(inside.contains { $0.intersectionOverUnion(face.label) >= 0.5 }, "label \(face.label), found \(inside)")
        let region = face.label.grown(byFractionPerSide: 0.5).clamped(toWidth: picture.width, height: picture.height)
        #expect(inside.allSatisfy { region.contains($0) }, "\(inside) outside \(region)")
    }

    @Test func aMissingModelRefusesAndNamesTheFile() throws {
        let path = "/nonexistent/centerface.onnx"
        #expect(throws: PrivacyError.modelUnavailable(path: path, reason: "no readable file at this path (scripts/setup.sh installs it)")) {
            try FaceNetDetector(settings: FaceNetSettings(modelPath: path))
        }
    }

    @Test func aFileThatIsNotCenterFaceRefusesAndNamesTheFile() throws {
        let directory = try TestFiles.makeDirectory("privacy-model")
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("centerface.onnx")
        try Data(repeating: 0x42, count: 4096).write(to: garbage)
        do {
            _ = try FaceNetDetector(settings: FaceNetSettings(model: .centerFace, modelPath: garbage.path))
            Issue.record("a detector was made from a file that is no model")
        } catch {
            guard case let .modelUnavailable(path, reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == garbage.path)
            #expect(reason.hasPrefix("not a centerface ONNX model"))
        }
    }

    @Test("a YuNet file that is not the pinned one (one byte changed, or CenterFace) refuses at start-up, naming the file and both sums")
    func aTamperedYuNetRefuses() throws {
        let directory = try TestFiles.makeDirectory("privacy-yunet")
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: FaceNetModel.yuNet.installedPath))
        bytes[bytes.count / 2] ^= 0x01
        let tampered = directory.appendingPathComponent("face_detection_yunet_2023mar.onnx")
        try bytes.write(to: tampered)
        for path in [tampered.path, FaceNetModel.centerFace.installedPath] {
            do {
                _ = try FaceNetDetector(settings: FaceNetSettings(model: .yuNet, modelPath: path))
                Issue.record("a YuNet detector was made from \(path)")
            } catch {
                guard case let .modelUnavailable(named, reason) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
                #expect(named == path)
                #expect(reason.contains("sha256") && reason.contains(FaceNetModel.yuNet.pinnedSHA256!), "\(reason)")
            }
        }
        // The node refuses to start with it, rather than falling back to a weaker detector.
        var config = NodeConfig()
        config.privacyModel = tampered.path
        config.privacyDetector = "yunet"
        #expect(throws: PrivacyError.self) { try PrivacyPass(config: config, logger: Logger(label: "test")) }
    }

    @Test("auto without a model falls back to the cascades, with the reason; a configured dnn refuses")
    func autoFallsBackWithAReason() throws {
        let setup = DetectorSetup(mode: .face, choice: .auto, modelPath: "/nonexistent/model.onnx")
        #expect(setup.faces == .cascades)
        #expect(setup.weakerDetectorReason?.contains("/nonexistent/model.onnx") == true)
        let detectors = try setup.makeDetectors()
        #expect(detectors.count == 1 && detectors[0] is CascadeFaceDetector)

        let installed = DetectorSetup(mode: .face, choice: .auto)
        #expect(installed.faces == .net && installed.net.model == .yuNet && installed.weakerDetectorReason == nil)
        #expect(installed.name == "yunet")
        #expect(DetectorSetup(mode: .face, choice: .centerface).name == "centerface")
        // A privacyModel path is told apart by its contents.
        let byPath = DetectorSetup(mode: .face, choice: .auto, modelPath: FaceNetModel.centerFace.installedPath)
        #expect(byPath.net.model == .centerFace && byPath.faces == .net)

        var config = NodeConfig()
        config.privacyDetector = "dnn"
        config.privacyModel = "/nonexistent/model.onnx"
        #expect(throws: PrivacyError.self) { try PrivacyPass(config: config, logger: Logger(label: "test")) }
        config.privacyDetector = "auto"
        let pass = try PrivacyPass(config: config, logger: Logger(label: "test"))
        #expect(pass.counters.detector == "cascades")
        #expect(pass.counters.weakerDetectorReason != nil)
    }

    @Test("both: every face either detector finds alone is masked by the union")
    func unionMasksWhatEitherFinds() throws {
        let dataset = try FaceDataset()
        let alone: [String: [any RegionDetector]] = [
            "net": try DetectorSetup(mode: .face, choice: .dnn).makeDetectors(),
            "cascades": try DetectorSetup(mode: .face, choice: .cascades).makeDetectors(),
        ]
        let both = try DetectorSetup(mode: .face, choice: .both).makeDetectors()
        #expect(both.count == 2)
        var found: [String: Int] = [:]
        for image in dataset.images(where: { $0.count >= 2 }).prefix(8) {
            let picture = try TestFrame.decode(dataset.path(of: image))
            let masker = try FaceMasker(detectors: both, settings: .init(holdFrames: 0))
            try masker.mask(picture.frame, captureTimeMs: 0)
            for (name, detectors) in alone {
                let pristine = try TestFrame.decode(dataset.path(of: image))
                var boxes: [PixelRect] = []
                for detector in detectors { try detector.detect(in: pristine.frame, appendingTo: &boxes) }
                for box in boxes {
                    #expect(coverage(of: box, by: masker.lastMaskedBoxes) == 1, "\(image): \(name) box \(box) not masked by both")
                }
                found[name, default: 0] += boxes.count
            }
        }
        #expect(found["net", default: 0] > 0 && found["cascades", default: 0] > 0, "\(found)")
    }
}
