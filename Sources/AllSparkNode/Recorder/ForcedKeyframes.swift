/// Which frames the recording loop makes key frames (IDRs) itself: each chunk's first, and
/// the next one after a request (ONVIF's SetSynchronizationPoint: a client that joins or lost
/// packets needs one), spaced out so that a client asking in a loop cannot make every frame
/// a key frame, each many times a frame's bytes. The encoder's own GOP comes on top.
struct ForcedKeyframes {
    /// A requested key frame comes at least this long after the last forced one; a request
    /// sooner waits (it is not lost).
    static let requestSpacingMs: Int64 = 1000

    /// Capture time of the last key frame forced.
    private var lastMs: Int64?

    /// Whether the frame captured at `captureMs` is to be a key frame. Takes the control's
    /// request when it answers one.
    mutating func forces(captureMs: Int64, startsChunk: Bool, control: RecorderControl) -> Bool {
        var forced = startsChunk
        if !forced, control.isKeyframeRequested, lastMs.map({ captureMs - $0 >= Self.requestSpacingMs }) ?? true {
            control.keyframeRequestTaken()
            forced = true
        }
        if forced { lastMs = captureMs }
        return forced
    }
}
