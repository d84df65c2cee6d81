import CV4L2
import Foundation

/// The V4L2 capture devices on this machine and what they offer, for `allspark-node devices`.
public enum V4L2Catalog {
    public struct Camera: Sendable {
        public let devicePath: String
        public let name: String
        public let driver: String
        public let formats: [Format]
    }

    public struct Format: Sendable {
        /// Four-character code such as YUYV, MJPG or H264.
        public let fourcc: String
        public let description: String
        public let sizes: [(width: Int, height: Int)]
    }

    public static func cameras(deviceDirectory: String = "/dev") -> [Camera] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: deviceDirectory)) ?? []
        let devices = names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        return devices.compactMap { camera(at: "\(deviceDirectory)/\($0)") }
    }

    static func camera(at path: String) -> Camera? {
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var card = [CChar](repeating: 0, count: 64)
        var driver = [CChar](repeating: 0, count: 32)
        var capabilities: UInt32 = 0
        guard allspark_v4l2_query(descriptor, &card, Int32(card.count), &driver, Int32(driver.count), &capabilities) == 0,
            capabilities & allspark_v4l2_capture_capability() != 0
        else { return nil }
        var formats: [Format] = []
        var index: UInt32 = 0
        var pixelFormat: UInt32 = 0
        var description = [CChar](repeating: 0, count: 64)
        while allspark_v4l2_format(descriptor, index, &pixelFormat, &description, Int32(description.count)) == 0 {
            var sizes: [(width: Int, height: Int)] = []
            var sizeIndex: UInt32 = 0
            var width: UInt32 = 0
            var height: UInt32 = 0
            while allspark_v4l2_frame_size(descriptor, pixelFormat, sizeIndex, &width, &height) == 0 {
                sizes.append((Int(width), Int(height)))
                sizeIndex += 1
            }
            formats.append(Format(fourcc: fourcc(pixelFormat), description: string(description), sizes: sizes))
            index += 1
        }
        return Camera(devicePath: path, name: string(card), driver: string(driver), formats: formats)
    }

    private static func fourcc(_ code: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8((code >> ($0 * 8)) & 0xff) }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
