/// Finds regions that must be masked (faces, people) in a frame.
public protocol RegionDetector: AnyObject {
    /// Appends what it finds to `regions`, in `frame`'s pixel coordinates, clipped to the
    /// frame. Does not clear `regions`, so several detectors can share one array.
    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError)
}
