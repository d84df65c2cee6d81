import COpenCVShim

/// How `PeopleDetector` searches a frame.
public struct PeopleDetectionSettings: Sendable, Equatable {
    /// Wider frames are shrunk to this width first; people shorter than 128 px at this
    /// scale are not found.
    public var maxDetectionWidth: Int
    /// SVM score a window needs; higher finds fewer and errs less.
    public var hitThreshold: Double
    /// Step between search scales; must be above 1.
    public var scaleFactor: Double
    /// Result buffer size; finding more fails the frame, which is then masked whole.
    public var maxPeople: Int

    public init(maxDetectionWidth: Int = 640, hitThreshold: Double = 0, scaleFactor: Double = 1.05, maxPeople: Int = 64) {
        self.maxDetectionWidth = maxDetectionWidth
        self.hitThreshold = hitThreshold
        self.scaleFactor = scaleFactor
        self.maxPeople = maxPeople
    }
}

/// Finds upright people with OpenCV's HOG pedestrian model, for the `body` privacy mode.
/// Not safe to use from two threads at once.
public final class PeopleDetector: RegionDetector {
    public let settings: PeopleDetectionSettings
    private let handle: OpaquePointer
    private let downscaler: LumaDownscaler
    private let found: UnsafeMutablePointer<allspark_rect>

    public init(settings: PeopleDetectionSettings = PeopleDetectionSettings()) throws(PrivacyError) {
        guard settings.scaleFactor > 1 else {
            throw .invalidSettings("people scale factor \(settings.scaleFactor) must be above 1")
        }
        guard (1...Int(Int32.max)).contains(settings.maxPeople) else {
            throw .invalidSettings("max people \(settings.maxPeople) is out of range")
        }
        self.downscaler = try LumaDownscaler(maxWidth: settings.maxDetectionWidth)
        var handle: OpaquePointer?
        let status = allspark_people_detector_create(&handle)
        guard status == ALLSPARK_OK, let handle else {
            throw .detectorUnavailable("HOG people detector: \(String(cString: allspark_status_description(status)))")
        }
        self.handle = handle
        self.settings = settings
        self.found = .allocate(capacity: settings.maxPeople)
    }

    deinit {
        found.deallocate()
        allspark_people_detector_free(handle)
    }

    public func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        let image = try downscaler.detectionImage(of: frame)
        var count: Int32 = 0
        let status = allspark_people_detector_detect(
            handle, image.grey, settings.hitThreshold, settings.scaleFactor, found, Int32(settings.maxPeople), &count)
        guard status == ALLSPARK_OK else {
            let detail = String(cString: allspark_people_detector_last_error(handle))
            throw .detectionFailed(
                "people: " + String(cString: allspark_status_description(status)) + (detail.isEmpty ? "" : ": \(detail)"))
        }
        for index in 0..<Int(count) {
            let box = image.frameRect(of: found[index])
            if !box.isEmpty {
                regions.append(box)
            }
        }
    }
}
