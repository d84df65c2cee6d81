/// Finds regions that must be masked (faces, people) in a frame.
public protocol RegionDetector: AnyObject {
    /// Appends what it finds to `regions`, in `frame`'s pixel coordinates, clipped to the
    /// frame. Does not clear `regions`, so several detectors can share one array.
    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError)

    /// Searches only `region` of the frame (frame pixels), which lets a detector look at a
    /// small part more finely than at the whole.
    func detect(in frame: YUV420Frame, within region: PixelRect, appendingTo regions: inout [PixelRect]) throws(PrivacyError)

    /// Searches `region` at `scale` detector pixels per frame pixel, where the detector can
    /// choose its scale: a changed region is searched as coarsely as its faces allow.
    func detect(
        in frame: YUV420Frame, within region: PixelRect, scale: Double, appendingTo regions: inout [PixelRect]
    ) throws(PrivacyError)
}

extension RegionDetector {
    /// Detectors that cannot search part of a frame search all of it: never less than asked.
    public func detect(in frame: YUV420Frame, within region: PixelRect, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        try detect(in: frame, appendingTo: &regions)
    }

    /// Detectors with a scale of their own search the region at it.
    public func detect(
        in frame: YUV420Frame, within region: PixelRect, scale: Double, appendingTo regions: inout [PixelRect]
    ) throws(PrivacyError) {
        try detect(in: frame, within: region, appendingTo: &regions)
    }
}
