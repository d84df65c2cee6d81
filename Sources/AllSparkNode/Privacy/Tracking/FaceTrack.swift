/// A face the detector found, followed from frame to frame by its measured motion until
/// it leaves the picture or the detector stops finding it (see `FaceTracker`).
struct FaceTrack {
    /// Where the face is in frame `frameNumber`, the newest frame it was carried to.
    var tracked: TrackedBox
    var frameNumber: Int
    /// Capture time of the last searched frame in which the detector found it.
    var lastSeenMs: Int64
    /// The last search that found it (by frame number).
    var lastFoundInSearch: Int
    /// The scale (detector input pixels per frame pixel) that search saw it at: a search
    /// coarser than that may not see the face at all, so its miss says nothing.
    var foundAtScale: Double
    /// Searches that could have found it and did not since it was last found, after its hold.
    var missesAfterHold: Int
    /// What its region looked like when it was last found.
    var signature: RegionSignature
}
