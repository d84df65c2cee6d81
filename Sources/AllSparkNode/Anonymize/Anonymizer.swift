import Foundation
import Logging

/// `allspark-node anonymize IN OUT`: the recorder's privacy pass over footage on disk.
/// IN is a video, an image or a folder of images; OUT is of the same kind.
public final class Anonymizer {
    public let request: AnonymizeRequest
    public let counters: PrivacyCounters
    private let logger: Logger

    public init(request: AnonymizeRequest, logger: Logger) {
        self.request = request
        self.logger = logger
        counters = AnonymizingMasker.counters(for: request)
    }

    /// Runs to the end, reporting each frame or image to `progress`.
    /// - Throws: `AnonymizeError` for missing or unsuitable paths. Images of a folder that
    ///   fail are skipped and counted in the summary instead.
    public func run(progress: (AnonymizeProgress) -> Void) throws -> AnonymizeSummary {
        let input = try AnonymizeInput(path: request.inputPath)
        let output = request.outputPath
        switch input {
        case .video:
            guard let format = VideoFormat(rawValue: output.fileExtension) else {
                throw AnonymizeError.unsupportedOutput(path: output, reason: "a video is written as .mp4 or .mov")
            }
            let masker = try AnonymizingMasker.make(for: request, holdFrames: FaceMasker.Settings().holdFrames, counters: counters)
            let boxes = try request.boxesPath.map(BoxesLog.init(path:))
            let frames = try VideoAnonymizer(masker: masker, logger: logger)
                .anonymize(request.inputPath, into: output, as: format, boxes: boxes, progress: progress)
            return AnonymizeSummary(itemsWritten: frames, itemsSkipped: 0, counters: counters.snapshot(),
                detector: counters.detector, weakerDetectorReason: counters.weakerDetectorReason)
        case .image:
            guard let format = StillImageFormat(fileName: output) else {
                throw AnonymizeError.unsupportedOutput(path: output, reason: "an image is written as .png, .jpg or .jpeg")
            }
            let masker = try AnonymizingMasker.make(for: request, holdFrames: 0, counters: counters)
            let boxes = try request.boxesPath.map(BoxesLog.init(path:))
            let name = URL(fileURLWithPath: request.inputPath).lastPathComponent
            let found = try StillImageAnonymizer(masker: masker).anonymize(request.inputPath, into: output, as: format)
            try boxes?.append(source: .image(name), boxes: found)
            progress(AnonymizeProgress(done: 1, total: 1, item: name, boxesMasked: found.count, skipReason: nil))
            return AnonymizeSummary(itemsWritten: 1, itemsSkipped: 0, counters: counters.snapshot(),
                detector: counters.detector, weakerDetectorReason: counters.weakerDetectorReason)
        case .imageFolder:
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue {
                throw AnonymizeError.unsupportedOutput(path: output, reason: "a folder of images is written into a folder")
            }
            let masker = try AnonymizingMasker.make(for: request, holdFrames: 0, counters: counters)
            let boxes = try request.boxesPath.map(BoxesLog.init(path:))
            let result = try ImageFolderAnonymizer(masker: masker)
                .anonymize(request.inputPath, into: output, boxes: boxes, progress: progress)
            return AnonymizeSummary(itemsWritten: result.written, itemsSkipped: result.skipped, counters: counters.snapshot(),
                detector: counters.detector, weakerDetectorReason: counters.weakerDetectorReason)
        }
    }
}
