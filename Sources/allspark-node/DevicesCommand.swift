import AllSparkNode
import ArgumentParser
import Foundation

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the V4L2 capture devices and the formats, sizes and rates they offer (other video nodes are left out).",
        discussion: "Give `source` a camera's `v4l2:<bus info>` (or `v4l2:<card name>`) to follow it when it comes back as another /dev/videoN.")

    @Flag(help: "Print JSON for scripts: an array of cameras with device, name, driver, busInfo and formats.")
    var json = false

    func run() throws {
        let cameras = V4L2Catalog.cameras()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(cameras.map(CameraListing.init)), as: UTF8.self))
            return
        }
        guard !cameras.isEmpty else {
            print("no camera found (no /dev/video* device that captures video); the node will use the test pattern")
            return
        }
        for camera in cameras {
            print("\(camera.devicePath): \(camera.name) [\(camera.driver)] source v4l2:\(camera.busInfo)")
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

/// One camera as `devices --json` prints it.
private struct CameraListing: Encodable {
    struct Size: Encodable {
        let minWidth, maxWidth, widthStep, minHeight, maxHeight, heightStep: Int
        /// Frames per second at the largest size, when the driver lists rates.
        let maxFrameRate: Double?
    }

    struct Format: Encodable {
        let fourcc: String
        let description: String
        let sizes: [Size]
    }

    let device: String
    let name: String
    let driver: String
    let busInfo: String
    /// What to put in `source` to follow this camera across renumbering.
    let source: String
    let formats: [Format]

    init(_ camera: V4L2Catalog.Camera) {
        device = camera.devicePath
        name = camera.name
        driver = camera.driver
        busInfo = camera.busInfo
        source = "v4l2:" + camera.busInfo
        formats = camera.formats.map { format in
            Format(fourcc: format.fourcc, description: format.description, sizes: format.sizes.map { offer in
                let range = offer.range
                return Size(
                    minWidth: range.minWidth, maxWidth: range.maxWidth, widthStep: range.widthStep, minHeight: range.minHeight,
                    maxHeight: range.maxHeight, heightStep: range.heightStep, maxFrameRate: offer.maxFrameRate)
            })
        }
    }
}
