import CV4L2
import Foundation

/// The V4L2 capture devices on this machine and what they offer: for `allspark-node
/// devices`, and for choosing a camera's input format (`CameraFormatChoice`).
public enum V4L2Catalog {
    public struct Camera: Sendable {
        public let devicePath: String
        public let name: String
        public let driver: String
        /// Where the device sits (USB port, platform device): stays the same when the
        /// camera comes back as another /dev/videoN.
        public let busInfo: String
        public let formats: [Format]

        /// Whether `source: v4l2:<name>` means this camera: its card name or its bus info.
        public func isNamed(_ name: String) -> Bool { self.name == name || busInfo == name }
    }

    public struct Format: Sendable {
        /// Four-character code such as YUYV, MJPG or H264.
        public let fourcc: String
        public let description: String
        public let sizes: [SizeOffer]
    }

    /// One size entry of a format, with the fastest rate at its largest size.
    public struct SizeOffer: Sendable, Equatable {
        public let range: SizeRange
        public let maxFrameRate: Double?
    }

    /// A discrete size (minimum = maximum), or a continuous or stepwise range of sizes.
    public struct SizeRange: Sendable, Equatable {
        public let minWidth: Int
        public let maxWidth: Int
        public let widthStep: Int
        public let minHeight: Int
        public let maxHeight: Int
        public let heightStep: Int

        public var isDiscrete: Bool { minWidth == maxWidth && minHeight == maxHeight }

        public func contains(width: Int, height: Int) -> Bool {
            (minWidth...maxWidth).contains(width) && (minHeight...maxHeight).contains(height)
                && (width - minWidth) % max(widthStep, 1) == 0 && (height - minHeight) % max(heightStep, 1) == 0
        }
    }

    public static func cameras(deviceDirectory: String = "/dev") -> [Camera] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: deviceDirectory)) ?? []
        let devices = names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        return devices.compactMap { camera(at: "\(deviceDirectory)/\($0)") }
    }

    /// The first capture device whose card name or bus info is `name`.
    public static func camera(named name: String, deviceDirectory: String = "/dev") -> Camera? {
        cameras(deviceDirectory: deviceDirectory).first { $0.isNamed(name) }
    }

    static func camera(at path: String) -> Camera? {
        withCaptureDevice(at: path) { device, name, driver, busInfo in
            let formats = pixelFormats(of: device).map { pixelFormat, description in
                let sizes = sizeRanges(of: device, pixelFormat: pixelFormat).map { range in
                    SizeOffer(range: range, maxFrameRate: maxFrameRate(of: device, pixelFormat: pixelFormat, width: range.maxWidth, height: range.maxHeight))
                }
                return Format(fourcc: fourcc(pixelFormat), description: description, sizes: sizes)
            }
            return Camera(devicePath: path, name: name, driver: driver, busInfo: busInfo, formats: formats)
        }
    }

    /// What each of the device's formats offers at exactly this size (formats without it are left out).
    static func offers(at path: String, width: Int, height: Int) -> [CameraFormatChoice.Offer] {
        withCaptureDevice(at: path) { device, _, _, _ in
            pixelFormats(of: device).compactMap { pixelFormat, _ in
                guard sizeRanges(of: device, pixelFormat: pixelFormat).contains(where: { $0.contains(width: width, height: height) })
                else { return nil }
                return CameraFormatChoice.Offer(
                    fourcc: fourcc(pixelFormat), maxFrameRate: maxFrameRate(of: device, pixelFormat: pixelFormat, width: width, height: height))
            }
        } ?? []
    }

    /// Opens a video capture device for the queries (nil for anything else, e.g. a metadata node).
    private static func withCaptureDevice<Result>(at path: String, _ body: (Int32, String, String, String) -> Result) -> Result? {
        let device = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard device >= 0 else { return nil }
        defer { close(device) }
        var card = [CChar](repeating: 0, count: 64)
        var driver = [CChar](repeating: 0, count: 32)
        var busInfo = [CChar](repeating: 0, count: 64)
        var capabilities: UInt32 = 0
        guard
            allspark_v4l2_query(
                device, &card, Int32(card.count), &driver, Int32(driver.count), &busInfo, Int32(busInfo.count), &capabilities) == 0,
            capabilities & allspark_v4l2_capture_capability() != 0
        else { return nil }
        return body(device, string(card), string(driver), string(busInfo))
    }

    private static func pixelFormats(of device: Int32) -> [(UInt32, String)] {
        var formats: [(UInt32, String)] = []
        var pixelFormat: UInt32 = 0
        var description = [CChar](repeating: 0, count: 64)
        while allspark_v4l2_format(device, UInt32(formats.count), &pixelFormat, &description, Int32(description.count)) == 0 {
            formats.append((pixelFormat, string(description)))
        }
        return formats
    }

    private static func sizeRanges(of device: Int32, pixelFormat: UInt32) -> [SizeRange] {
        var ranges: [SizeRange] = []
        var entry = allspark_v4l2_size_range()
        while allspark_v4l2_frame_size(device, pixelFormat, UInt32(ranges.count), &entry) == 0 {
            ranges.append(SizeRange(
                minWidth: Int(entry.min_width), maxWidth: Int(entry.max_width), widthStep: Int(entry.width_step),
                minHeight: Int(entry.min_height), maxHeight: Int(entry.max_height), heightStep: Int(entry.height_step)))
            if !ranges.last!.isDiscrete { break }  // a range is the only entry
        }
        return ranges
    }

    /// The fastest rate the driver lists for the format at that size; nil when it lists none.
    private static func maxFrameRate(of device: Int32, pixelFormat: UInt32, width: Int, height: Int) -> Double? {
        var fastest: Double?
        var index: UInt32 = 0
        var numerator: UInt32 = 0
        var denominator: UInt32 = 0
        while allspark_v4l2_frame_interval(device, pixelFormat, UInt32(width), UInt32(height), index, &numerator, &denominator) == 0 {
            if numerator > 0 { fastest = max(fastest ?? 0, Double(denominator) / Double(numerator)) }
            index += 1
        }
        return fastest
    }

    /// A frame rate as people write it: 30, or 29.97.
    public static func rateText(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(format: "%.2f", rate)
    }

    private static func fourcc(_ code: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8((code >> ($0 * 8)) & 0xff) }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    private static func string(_ characters: [CChar]) -> String {
        String(nulTerminated: characters)
    }
}
