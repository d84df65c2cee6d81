import Foundation
import Synchronization
import Testing

@testable import AllSparkNode

/// YuNet on ONNX Runtime (the library `scripts/setup.sh` unpacks, or Debian 13's) beside
/// the same model on OpenCV's dnn, and what the node does when the library is not there.
@Suite("Privacy: the face net on ONNX Runtime")
struct PrivacyOnnxRuntimeTests {
    private static func library() throws -> OnnxRuntimeLibrary {
        try OnnxRuntimeLibrary.open().get()
    }

    /// Pairs each box of `reference` with its best match in `other` and returns the pairs
    /// whose IoU is below 0.9, or every box when the counts differ.
    private func mismatches(_ reference: [PixelRect], _ other: [PixelRect]) -> [String] {
        guard reference.count == other.count else { return ["\(reference.count) boxes against \(other.count): \(reference) vs \(other)"] }
        return reference.compactMap { box in
            let best = other.map { $0.intersectionOverUnion(box) }.max() ?? 0
            return best >= 0.9 ? nil : "\(box) best IoU \(best) in \(other)"
        }
    }

    @Test("the same faces as OpenCV's dnn on dev photos and clips, box for box (IoU >= 0.9)")
    func sameFacesAsOpenCV() throws {
        let onnx = try FaceNetDetector(engine: .onnxRuntime(Self.library()))
        let openCV = try FaceNetDetector(engine: .openCV)
        let dataset = try FaceDataset()
        // Every 25th labeled photo (56 of them, of every size and face count), every 8th
        // Carphone frame, and the street clip's frames scaled to 720p (no faces the nets
        // can see: the same empty answer is asked of both).
        let photos = dataset.images(where: { !$0.isEmpty }).enumerated().filter { $0.offset % 25 == 0 }
            .map { try? TestFrame.decode(dataset.path(of: $0.element)) }
        let carphone = try TestFrame.decodeVideo(FaceClip.carphone).enumerated().filter { $0.offset % 8 == 0 }.map(\.element)
        let carphone720p = try TestFrame.decodeVideo(FaceClip.carphone, filter: "select='not(mod(n\\,30))',scale=1280:720")
        let street = try TestFrame.decodeVideo(
            TestFiles.shared.appendingPathComponent("faces/video/vtest.avi").path, filter: "select='not(mod(n\\,200))',scale=1280:720")
        let pictures = photos.compactMap { $0 } + carphone + carphone720p + street
        try #require(pictures.count >= 80)
        var faces = 0
        var problems: [String] = []
        for (index, picture) in pictures.enumerated() {
            let expected = try picture.faces(using: openCV)
            faces += expected.count
            problems += mismatches(expected, try picture.faces(using: onnx)).map { "picture \(index): \($0)" }
        }
        #expect(faces >= 80, "too few faces to compare: \(faces)")
        #expect(problems.isEmpty, "\(problems.count) differences: \(problems.prefix(10))")
    }

    @Test("a region search finds the same face as OpenCV's dnn, at every scale the search plan asks for")
    func regionSearchesMatch() throws {
        let onnx = try FaceNetDetector(engine: .onnxRuntime(Self.library()))
        let openCV = try FaceNetDetector(engine: .openCV)
        let face = try LargeFace.find()
        let picture = try TestFrame.decode(face.path)
        // Regions reaching past the picture's edge too: their outside part is mirrored.
        let regions = [face.label.grown(byFractionPerSide: 0.5), face.label.grown(byFractionPerSide: 1.5),
                       PixelRect(x: -face.label.width / 2, y: 0, width: picture.width / 2 + face.label.maxX, height: picture.height)]
        for region in regions {
            for scale in [0.25, 0.5, 1.0] {
                var expected: [PixelRect] = []
                var found: [PixelRect] = []
                try openCV.detect(in: picture.frame, within: region, scale: scale, appendingTo: &expected)
                try onnx.detect(in: picture.frame, within: region, scale: scale, appendingTo: &found)
                #expect(mismatches(expected, found).isEmpty, "region \(region) at \(scale): \(expected) vs \(found)")
            }
        }
    }

    @Test("the rewritten model keeps every field but the image size, and refuses what is no model")
    func freeImageSizeRewrite() throws {
        let path = FaceNetModel.yuNet.installedPath
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let rewritten = try OnnxFreeImageSize.rewrite(original)
        // The weights are all still there: only shapes were renamed or dropped.
        #expect(rewritten.count < original.count && rewritten.count > original.count * 9 / 10)
        #expect(String(decoding: rewritten, as: UTF8.self).contains("height"))
        // Its own output fed back in: already free, nothing left to drop, the same bytes.
        #expect(try OnnxFreeImageSize.rewrite(rewritten) == rewritten)
        #expect(throws: ProtobufWire.Malformed.self) { try OnnxFreeImageSize.rewrite(Array(original.prefix(1000))) }
        #expect(throws: ProtobufWire.Malformed.self) { try OnnxFreeImageSize.rewrite(Array("not a model".utf8)) }
        // A well-formed message with no graph in it.
        #expect(throws: ProtobufWire.Malformed.self) { try OnnxFreeImageSize.rewrite([0x08, 0x06]) }
    }

    @Test("with no library where it is looked for, auto runs on OpenCV's dnn and says why")
    func missingLibraryFallsBack() throws {
        let missing = "/nonexistent/libonnxruntime.so.1.21.1"
        let setup = DetectorSetup(mode: .face, choice: .yunet, engine: .auto, engineLibrary: missing)
        guard case .openCV = setup.engine else {
            Issue.record("engine \(setup.engine.name) with the library missing")
            return
        }
        let reason = try #require(setup.engineFallbackReason)
        #expect(reason.contains(missing))
        // Faces are still found: the detector runs, on the other engine.
        let face = try LargeFace.find()
        let net = try #require(try setup.makeDetectors().first as? FaceNetDetector)
        #expect(try TestFrame.decode(face.path).faces(using: net).contains { $0.intersectionOverUnion(face.label) >= 0.5 })
    }

    @Test("a file that is not ONNX Runtime is refused by name; privacyEngine: onnxruntime then refuses to start")
    func brokenLibrary() throws {
        let directory = try TestFiles.makeDirectory("onnxruntime-library")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = directory.appendingPathComponent("libonnxruntime.so.1.21.1")
        try Data("not a shared object".utf8).write(to: fake)
        let setup = DetectorSetup(mode: .face, choice: .yunet, engine: .onnxruntime, engineLibrary: fake.path)
        #expect(setup.engineFallbackReason == nil)
        do {
            _ = try setup.makeDetectors()
            Issue.record("detectors were made without the engine the config requires")
        } catch {
            guard case .detectorUnavailable(let message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(message.contains(fake.path), "\(message)")
        }
    }

    /// Making a session points standard error at a pipe for the call (to drop ONNX's schema
    /// lines). Two makes interleaved once left one's pipe as standard error, and its drain
    /// waited forever: the threads here then never finish.
    @Test("sessions made on four threads at once are all made")
    func sessionsMadeAtOnce() throws {
        let library = try Self.library()
        let finished = DispatchSemaphore(value: 0)
        let failures = Mutex<[String]>([])
        for _ in 0..<4 {
            Thread.detachNewThread {
                for _ in 0..<3 {
                    do { _ = try FaceNetDetector(engine: .onnxRuntime(library)) } catch { failures.withLock { $0.append("\(error)") } }
                }
                finished.signal()
            }
        }
        // A bound only a deadlock reaches (the 12 take about a second here): a hang fails
        // this test instead of stalling the suite.
        var threadsDone = 0
        while threadsDone < 4, finished.wait(timeout: .now() + 120) == .success { threadsDone += 1 }
        #expect(threadsDone == 4, "\(4 - threadsDone) of 4 threads still making sessions after 120 s")
        #expect(failures.withLock { $0 }.isEmpty)
    }

    @Test("with the library present, auto picks ONNX Runtime and names it")
    func presentLibraryIsChosen() throws {
        let setup = DetectorSetup(mode: .face, choice: .auto, engine: .auto)
        guard case .onnxRuntime(let library) = setup.engine else {
            Issue.record("engine \(setup.engine.name): \(setup.engineFallbackReason ?? "")")
            return
        }
        #expect(setup.engine.name == "onnxruntime " + library.version)
        #expect(library.version.hasPrefix("1.21"))
        #expect(setup.engineFallbackReason == nil)
        // The cascades have no use for it.
        #expect(setup.engine.label == "onnxruntime")
        let cascades = DetectorSetup(mode: .face, choice: .cascades, engine: .auto)
        #expect(cascades.engine.label == "opencv-dnn")
    }
}
