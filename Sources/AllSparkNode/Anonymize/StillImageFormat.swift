import CFFmpeg

/// The image files `anonymize` writes, chosen by the file name's extension.
enum StillImageFormat: String {
    case png
    case jpeg

    /// Extensions read as images (of a folder, or as IN); only png and jpeg can be written.
    static let readableExtensions: Set<String> = ["jpg", "jpeg", "png", "bmp", "tif", "tiff", "webp"]

    init?(fileName: String) {
        switch fileName.fileExtension {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }

    var encoderName: String {
        switch self {
        case .png: "png"
        case .jpeg: "mjpeg"
        }
    }

    /// The picture format handed to the encoder; masked boxes are composited in it.
    var pixelFormat: AVPixelFormat {
        switch self {
        case .png: AV_PIX_FMT_RGB24
        // Full-range 4:2:0, the layout of most JPEG photos.
        case .jpeg: AV_PIX_FMT_YUVJ420P
        }
    }

    /// Each plane of `pixelFormat`: bytes per pixel and how much smaller than the picture.
    var planes: [PlaneLayout] {
        switch self {
        case .png: [PlaneLayout(index: 0, bytesPerPixel: 3, subsampled: false)]
        case .jpeg: [
            PlaneLayout(index: 0, bytesPerPixel: 1, subsampled: false),
            PlaneLayout(index: 1, bytesPerPixel: 1, subsampled: true),
            PlaneLayout(index: 2, bytesPerPixel: 1, subsampled: true),
        ]
        }
    }
}

/// One plane of a picture; a subsampled plane has one sample per 2x2 pixels.
struct PlaneLayout {
    let index: Int
    let bytesPerPixel: Int
    let subsampled: Bool
}

extension String {
    /// The lower-cased text after the last dot of the last path component, or "".
    var fileExtension: String {
        let name = split(separator: "/").last.map(String.init) ?? self
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
