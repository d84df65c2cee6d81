import COpenCVShim
import Foundation

/// Finds faces in a frame's Y plane with OpenCV Haar cascades.
///
/// Every pass in its settings runs over one shrunk copy of the Y plane; boxes come back
/// in the frame's pixel coordinates, as the cascades report them (no margin). Not safe
/// to use from two threads at once; create one per recording thread.
public final class CascadeFaceDetector: RegionDetector {
    public let settings: FaceDetectionSettings
    private let handle: OpaquePointer
    /// For each pass, the index of its cascade in `handle` (a file used twice loads once).
    private let cascadeIndexOfPass: [Int32]
    private let parameters: allspark_cascade_params
    private let downscaler: LumaDownscaler
    private let found: UnsafeMutablePointer<allspark_rect>

    /// Loads every cascade the passes name.
    /// - Throws: `PrivacyError.cascadeUnavailable` naming the first file that fails to load.
    public init(settings: FaceDetectionSettings = FaceDetectionSettings()) throws(PrivacyError) {
        try settings.validate()
        var files: [String] = []
        var cascadeIndexOfPass: [Int32] = []
        for pass in settings.passes {
            if let index = files.firstIndex(of: pass.cascadeFile) {
                cascadeIndexOfPass.append(Int32(index))
            } else {
                cascadeIndexOfPass.append(Int32(files.count))
                files.append(pass.cascadeFile)
            }
        }
        self.downscaler = try LumaDownscaler(maxWidth: settings.maxDetectionWidth)
        self.handle = try Self.loadCascades(files.map(settings.path(of:)))
        self.settings = settings
        self.cascadeIndexOfPass = cascadeIndexOfPass
        self.parameters = allspark_cascade_params(
            scale_factor: settings.scaleFactor, min_neighbors: Int32(clamping: settings.minNeighbors),
            min_width: Int32(clamping: settings.minFaceSize), min_height: Int32(clamping: settings.minFaceSize),
            max_width: 0, max_height: 0)
        self.found = .allocate(capacity: settings.maxFacesPerPass)
    }

    deinit {
        found.deallocate()
        allspark_cascade_detector_free(handle)
    }

    public func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        let image = try downscaler.detectionImage(of: frame)
        for (pass, cascadeIndex) in zip(settings.passes, cascadeIndexOfPass) {
            var count: Int32 = 0
            let status = allspark_cascade_detector_detect(
                handle, cascadeIndex, pass.mirrored ? 1 : 0, image.grey, parameters,
                found, Int32(settings.maxFacesPerPass), &count)
            guard status == ALLSPARK_OK else {
                let detail = String(cString: allspark_cascade_detector_last_error(handle))
                throw .detectionFailed(
                    "\(pass.cascadeFile)\(pass.mirrored ? " (mirrored)" : ""): "
                        + String(cString: allspark_status_description(status))
                        + (detail.isEmpty ? "" : ": \(detail)"))
            }
            for index in 0..<Int(count) {
                let box = image.frameRect(of: found[index])
                if !box.isEmpty {
                    regions.append(box)
                }
            }
        }
    }

    private static func loadCascades(_ paths: [String]) throws(PrivacyError) -> OpaquePointer {
        // Checked here too so that a missing file gets a plain reason and no OpenCV log noise.
        if let missing = paths.first(where: { !FileManager.default.isReadableFile(atPath: $0) }) {
            throw .cascadeUnavailable(path: missing, reason: "no readable file at this path")
        }
        let cPaths = paths.map { strdup($0) }
        defer { cPaths.forEach { free($0) } }
        var handle: OpaquePointer?
        var failedIndex: Int32 = -1
        let status = cPaths.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            allspark_cascade_detector_create(pointers.baseAddress, Int32(paths.count), &handle, &failedIndex)
        }
        guard status == ALLSPARK_OK, let handle else {
            guard paths.indices.contains(Int(failedIndex)) else {
                throw .detectorUnavailable(String(cString: allspark_status_description(status)))
            }
            throw .cascadeUnavailable(
                path: paths[Int(failedIndex)],
                reason: "not a valid cascade (\(String(cString: allspark_status_description(status))))")
        }
        return handle
    }
}
