import COpenCVShim

/// Resizes grey pictures into buffers the caller owns (`allspark_scaler_resize`: halving by
/// area averaging while at least twice too large, then one last step). Owns the scratch for
/// the halved pictures, which only grows: it allocates nothing once it has seen the largest size.
final class GreyScaler {
    /// How the last step, under 2:1, scales.
    enum Finish {
        /// Area averaging, as a direct area resize: what a detector is given.
        case area
        /// Bilinear: a sixth of the cost, with the same noise left in a tracking thumbnail (bench/history/15).
        case bilinear
    }

    private let handle: OpaquePointer

    init(finish: Finish) throws(PrivacyError) {
        var handle: OpaquePointer?
        guard allspark_scaler_create(finish == .area ? 1 : 0, &handle) == ALLSPARK_OK, let handle else {
            throw .detectorUnavailable("grey picture scaler")
        }
        self.handle = handle
    }

    deinit { allspark_scaler_free(handle) }

    /// Scales `source` into `width` x `height` pixels at `destination` (rows `width` apart).
    func resize(
        _ source: allspark_grey_image, into destination: UnsafeMutablePointer<UInt8>, width: Int, height: Int
    ) throws(PrivacyError) {
        let status = allspark_scaler_resize(handle, source, destination, Int32(width), Int32(height), Int32(width))
        guard status == ALLSPARK_OK else {
            throw .detectionFailed("resizing \(source.width)x\(source.height) to \(width)x\(height): "
                + String(cString: allspark_status_description(status)))
        }
    }
}
