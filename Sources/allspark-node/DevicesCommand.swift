import AllSparkNode
import ArgumentParser

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List V4L2 cameras and the formats they offer.")

    func run() throws {
        let cameras = V4L2Catalog.cameras()
        guard !cameras.isEmpty else {
            print("no camera found (no /dev/video* device that captures video); the node will use the test pattern")
            return
        }
        for camera in cameras {
            print("\(camera.devicePath): \(camera.name) [\(camera.driver)]")
            for format in camera.formats {
                let sizes = format.sizes.map(Self.describe).joined(separator: " ")
                print("  \(format.fourcc) \(format.description)\(sizes.isEmpty ? "" : ": \(sizes)")")
            }
        }
    }

    /// `1920x1080@30`, or for a range `32x32-2592x1944/2x2@15` (the rate at the largest size).
    private static func describe(_ size: V4L2Catalog.SizeOffer) -> String {
        let range = size.range
        var text = "\(range.maxWidth)x\(range.maxHeight)"
        if !range.isDiscrete {
            text = "\(range.minWidth)x\(range.minHeight)-\(text)/\(range.widthStep)x\(range.heightStep)"
        }
        guard let rate = size.maxFrameRate else { return text }
        return text + "@" + V4L2Catalog.rateText(rate)
    }
}
