import Foundation

/// Where frames come from. All three are opened through libavformat/libavdevice.
public enum CaptureSource: Equatable, Sendable, CustomStringConvertible {
    /// A V4L2 device such as /dev/video0, or a stable link to one (/dev/v4l/by-id/...).
    case camera(devicePath: String)
    /// A V4L2 camera found by its card name or bus info at every open (`v4l2:<name>`), so
    /// recording follows it when it comes back as another /dev/videoN.
    case namedCamera(String)
    /// A media file, looped unless configured otherwise.
    case file(path: String)
    /// lavfi's `testsrc2`, so the node runs where there is no camera.
    case testPattern

    static let namePrefix = "v4l2:"

    /// Resolves the `source` setting: `auto` takes the first capture device (followed by its
    /// bus info, so it is found again under another number), else the test pattern.
    public static func resolve(_ setting: String, cameras: () -> [V4L2Catalog.Camera] = { V4L2Catalog.cameras() }) -> CaptureSource {
        switch setting {
        case "auto":
            guard let camera = cameras().first else { return .testPattern }
            return camera.busInfo.isEmpty ? .camera(devicePath: camera.devicePath) : .namedCamera(camera.busInfo)
        case "testsrc", "testsrc2", "test-pattern":
            return .testPattern
        case let name where name.hasPrefix(namePrefix):
            return .namedCamera(String(name.dropFirst(namePrefix.count)))
        case let path where path.hasPrefix("/dev/video") || path.hasPrefix("/dev/v4l/"):
            return .camera(devicePath: path)
        default:
            return .file(path: setting)
        }
    }

    public var description: String {
        switch self {
        case .camera(let path): "camera \(path)"
        case .namedCamera(let name): "camera \(Self.namePrefix)\(name)"
        case .file(let path): "file \(path)"
        case .testPattern: "test pattern (lavfi testsrc2)"
        }
    }

    /// Paced sources are files and the test pattern; a camera paces itself.
    var isLive: Bool {
        switch self {
        case .camera, .namedCamera: true
        case .file, .testPattern: false
        }
    }
}
