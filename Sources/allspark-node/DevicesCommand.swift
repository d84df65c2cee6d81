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
                let sizes = format.sizes.map { "\($0.width)x\($0.height)" }.joined(separator: " ")
                print("  \(format.fourcc) \(format.description)\(sizes.isEmpty ? "" : ": \(sizes)")")
            }
        }
    }
}
