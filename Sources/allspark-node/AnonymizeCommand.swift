import AllSparkNode
import ArgumentParser
import Foundation
import Logging

struct AnonymizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anonymize",
        abstract: "Mask faces in a video, an image or a folder of images, as the recorder does before encoding.",
        discussion: """
            IN and OUT are of the same kind: a video is written as H.264 in .mp4 or .mov, an image \
            as .png or .jpg (by OUT's extension), a folder as a folder of the same file names. \
            Images of a folder that cannot be read are reported and skipped; the exit status is \
            then non-zero.
            """)

    @Argument(help: "A video file, an image, or a folder of images.")
    var input: String
    @Argument(help: "Where to write the masked copy.")
    var output: String
    @Option(help: "Write the masked rectangles here: one JSON line per frame or image, in IN's pixel coordinates.")
    var boxes: String?
    @Option(help: "What to mask: face or body (faces and whole people).")
    var privacy: String = PrivacyMode.face.rawValue
    @Option(help: "How to mask: mosaic or fill.")
    var mask: String = MaskStyle.mosaic.rawValue
    @Option(name: .customLong("privacy-detector"), help: "Face detector: auto (the best face net installed: YuNet, else CenterFace), dnn, yunet, centerface, cascades or both.")
    var privacyDetector: String = FaceDetectorChoice.auto.rawValue
    @Option(name: .customLong("privacy-model"), help: "The face net's ONNX model file (YuNet 2023mar or CenterFace); default: the installed one.")
    var privacyModel: String?
    @Option(name: .customLong("cascades"), help: "Folder of the OpenCV Haar cascades.")
    var cascadeDirectory: String = FaceDetectionSettings.defaultCascadeDirectory

    func validate() throws {
        guard let mode = PrivacyMode(rawValue: privacy), mode != .none else {
            throw ValidationError("--privacy must be face or body, got \(privacy)")
        }
        guard FaceDetectorChoice(rawValue: privacyDetector) != nil else {
            throw ValidationError("--privacy-detector must be one of \(FaceDetectorChoice.allCases.map(\.rawValue).joined(separator: ", ")), got \(privacyDetector)")
        }
        guard MaskStyle(rawValue: mask) != nil else {
            throw ValidationError("--mask must be mosaic or fill, got \(mask)")
        }
    }

    func run() throws {
        LibavLogging.configure(verbose: false)
        var logger = Logger(label: "allspark-node.anonymize")
        logger.logLevel = .warning
        let request = AnonymizeRequest(
            inputPath: input, outputPath: output, boxesPath: boxes, mode: PrivacyMode(rawValue: privacy)!,
            style: MaskStyle(rawValue: mask)!, detector: FaceDetectorChoice(rawValue: privacyDetector)!,
            modelPath: privacyModel, cascadeDirectory: cascadeDirectory)
        let reporter = ProgressReporter()
        let summary: AnonymizeSummary
        let started = Date()
        do {
            let anonymizer = Anonymizer(request: request, logger: logger)
            if let reason = anonymizer.counters.weakerDetectorReason {
                FileHandle.standardError.write(Data("warning: privacy degraded: \(reason)\n".utf8))
            }
            summary = try anonymizer.run(progress: reporter.report)
        } catch {
            reporter.finishLine()
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
        reporter.finishLine()
        let counters = summary.counters
        let seconds = max(Date().timeIntervalSince(started), 1e-3)
        FileHandle.standardError.write(Data(String(
            format: "done: %d written, %d skipped; %d frames with faces, %d faces masked; detector %@, %.1f ms detection per frame, %.2f frames/s\n",
            summary.itemsWritten, summary.itemsSkipped, counters.framesWithFaces, counters.facesMasked,
            summary.detector, counters.meanDetectionMs, Double(counters.frames) / seconds).utf8))
        if summary.itemsSkipped > 0 {
            let skipped = AnonymizeError.imagesSkipped(count: summary.itemsSkipped, of: summary.itemsWritten + summary.itemsSkipped)
            FileHandle.standardError.write(Data("error: \(skipped)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// Progress on stderr: a line rewritten in place at most every half second, and a line
/// of its own for each skipped image.
private final class ProgressReporter {
    private let start = Date()
    private var lastPrint = Date.distantPast
    private var lineOpen = false

    func report(_ progress: AnonymizeProgress) {
        if let reason = progress.skipReason {
            finishLine()
            FileHandle.standardError.write(Data("skipped \(progress.item): \(reason)\n".utf8))
            return
        }
        let now = Date()
        guard now.timeIntervalSince(lastPrint) >= 0.5 || progress.done == progress.total else { return }
        lastPrint = now
        let rate = Double(progress.done) / max(now.timeIntervalSince(start), 1e-3)
        let count = progress.total.map { "\(progress.done)/\($0) images" } ?? "\(progress.done) frames"
        let line = "\r\(count), \(String(format: "%.1f", rate)) per s, last \(progress.item): \(progress.boxesMasked) masked   "
        FileHandle.standardError.write(Data(line.utf8))
        lineOpen = true
    }

    func finishLine() {
        if lineOpen { FileHandle.standardError.write(Data("\n".utf8)) }
        lineOpen = false
    }
}
