/// The V4L2 input format for `cameraFormat: auto`: the one that delivers the configured
/// size at the configured frame rate with the least loss and work.
///
/// Left alone, libavdevice asks the driver for raw formats first and drivers agree to the
/// first they can do, so a USB camera records 1080p as YUYV at the 5 fps a USB 2 link
/// carries, where its MJPEG stream gives 30.
struct CameraFormatChoice: Equatable, Sendable {
    /// What one of the camera's formats offers at the configured size.
    struct Offer: Equatable, Sendable {
        /// Four-character code such as YUYV, MJPG or H264.
        let fourcc: String
        /// The fastest frame rate at that size; nil when the driver does not say.
        let maxFrameRate: Double?
    }

    let offer: Offer
    /// libavdevice's name for the format (its `input_format` option).
    let inputFormat: String

    /// The formats libavdevice reads, best first: raw ones need no decoding and lose
    /// nothing; MJPEG decodes cheaply; H.264 is decoded and then encoded a second time.
    static let preference: [(fourcc: String, inputFormat: String)] = [
        ("YUYV", "yuyv422"), ("UYVY", "uyvy422"), ("NV12", "nv12"), ("YU12", "yuv420p"),
        ("MJPG", "mjpeg"), ("H264", "h264"),
    ]

    /// A rate within 2% counts as reached: 30000/1001 fps serves a configured 30.
    private static let rateTolerance = 0.98

    /// - Parameter offers: the camera's formats that offer the configured size.
    /// - Returns: the format that reaches `fps` and comes first in `preference`; if none
    ///   reaches it, the fastest. Nil when libavdevice reads none of them (the driver decides).
    static func choose(from offers: [Offer], fps: Double) -> CameraFormatChoice? {
        let candidates = offers.compactMap { offer -> (offer: Offer, rank: Int)? in
            preference.firstIndex { $0.fourcc == offer.fourcc }.map { (offer, $0) }
        }
        func reaches(_ offer: Offer) -> Bool { (offer.maxFrameRate ?? .infinity) >= fps * rateTolerance }
        let best = candidates.min { a, b in
            if reaches(a.offer) != reaches(b.offer) { return reaches(a.offer) }
            if !reaches(a.offer), a.offer.maxFrameRate != b.offer.maxFrameRate {
                return (a.offer.maxFrameRate ?? 0) > (b.offer.maxFrameRate ?? 0)
            }
            return a.rank < b.rank
        }
        return best.map { CameraFormatChoice(offer: $0.offer, inputFormat: preference[$0.rank].inputFormat) }
    }
}

extension CameraFormatChoice: CustomStringConvertible {
    var description: String {
        let rate = offer.maxFrameRate.map { "up to \(V4L2Catalog.rateText($0)) fps" } ?? "rate not reported"
        return "\(offer.fourcc) (\(inputFormat), \(rate))"
    }
}
