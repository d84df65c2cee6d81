import Foundation

/// What IN is, which fixes what OUT must be.
enum AnonymizeInput: Equatable {
    case video
    case image
    case imageFolder

    /// - Throws: `AnonymizeError.inputMissing` when nothing is at `path`.
    init(path: String) throws(AnonymizeError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .inputMissing(path: path)
        }
        if isDirectory.boolValue {
            self = .imageFolder
        } else if StillImageFormat.readableExtensions.contains(path.fileExtension) {
            self = .image
        } else {
            self = .video
        }
    }
}
