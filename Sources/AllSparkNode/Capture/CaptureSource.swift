import Foundation

/// Where frames come from. All three are opened through libavformat/libavdevice.
public enum CaptureSource: Equatable, Sendable, CustomStringConvertible {
    /// A V4L2 device such as /dev/video0.
    case camera(devicePath: String)
    /// A media file, looped unless configured otherwise.
    case file(path: String)
    /// lavfi's `testsrc2`, so the node runs where there is no camera.
    case testPattern

    /// Resolves the `source` setting: `auto` picks /dev/video0 when it exists, else the test pattern.
    public static func resolve(_ setting: String, deviceExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> CaptureSource {
        switch setting {
        case "auto":
            return deviceExists("/dev/video0") ? .camera(devicePath: "/dev/video0") : .testPattern
        case "testsrc", "testsrc2", "test-pattern":
            return .testPattern
        case let path where path.hasPrefix("/dev/video"):
            return .camera(devicePath: path)
        default:
            return .file(path: setting)
        }
    }

    public var description: String {
        switch self {
        case .camera(let path): "camera \(path)"
        case .file(let path): "file \(path)"
        case .testPattern: "test pattern (lavfi testsrc2)"
        }
    }

    /// Paced sources are files and the test pattern; a camera paces itself.
    var isLive: Bool {
        if case .camera = self { return true }
        return false
    }
}
