/// Why `anonymize` cannot do what it was asked.
public enum AnonymizeError: Error, Equatable, CustomStringConvertible {
    case inputMissing(path: String)
    case emptyFolder(path: String)
    /// OUT cannot be written as asked (wrong kind for IN, unknown extension).
    case unsupportedOutput(path: String, reason: String)
    case unreadableImage(path: String, reason: String)
    case noFrames(path: String)
    /// Some images of a folder were skipped; the others were written.
    case imagesSkipped(count: Int, of: Int)

    public var description: String {
        switch self {
        case let .inputMissing(path): "no file or folder at \(path)"
        case let .emptyFolder(path): "no images (jpg, jpeg, png, bmp, tif, tiff, webp) in \(path)"
        case let .unsupportedOutput(path, reason): "cannot write \(path): \(reason)"
        case let .unreadableImage(path, reason): "cannot read image \(path): \(reason)"
        case let .noFrames(path): "no video frames in \(path)"
        case let .imagesSkipped(count, total): "\(count) of \(total) images could not be anonymized (see above)"
        }
    }
}
