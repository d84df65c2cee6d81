import Foundation

/// Masks every image of a folder into another folder, under the same file names.
///
/// An image that cannot be read or written is reported and skipped; the rest go on.
/// Files that are not images by their extension, and subfolders, are ignored.
final class ImageFolderAnonymizer {
    private let images: StillImageAnonymizer

    init(masker: FaceMasker) {
        images = StillImageAnonymizer(masker: masker)
    }

    /// - Returns: images written and images skipped.
    /// - Throws: `AnonymizeError.emptyFolder` when `inputFolder` holds no image.
    func anonymize(
        _ inputFolder: String, into outputFolder: String, boxes: BoxesLog?, progress: (AnonymizeProgress) -> Void
    ) throws -> (written: Int, skipped: Int) {
        let names = try FileManager.default.contentsOfDirectory(atPath: inputFolder)
            .filter { StillImageFormat.readableExtensions.contains($0.fileExtension) && !$0.hasPrefix(".") }
            .sorted()
        guard !names.isEmpty else { throw AnonymizeError.emptyFolder(path: inputFolder) }
        try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
        let input = URL(fileURLWithPath: inputFolder)
        let output = URL(fileURLWithPath: outputFolder)
        var written = 0
        var skipped = 0
        for (index, name) in names.enumerated() {
            var masked = 0
            var skipReason: String?
            do {
                guard let format = StillImageFormat(fileName: name) else {
                    throw AnonymizeError.unsupportedOutput(
                        path: output.appendingPathComponent(name).path, reason: "only .png, .jpg and .jpeg can be written")
                }
                let found = try images.anonymize(
                    input.appendingPathComponent(name).path, into: output.appendingPathComponent(name).path, as: format)
                try boxes?.append(source: .image(name), boxes: found)
                masked = found.count
                written += 1
            } catch {
                skipReason = "\(error)"
                skipped += 1
            }
            progress(AnonymizeProgress(done: index + 1, total: names.count, item: name, boxesMasked: masked, skipReason: skipReason))
        }
        return (written, skipped)
    }
}
