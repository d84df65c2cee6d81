import CFFmpeg

/// How long a signed file's last frame lasts. The SEIs that sign the file's last GOP lie
/// behind that frame's picture (no frame follows to carry them), and H.264 counts SEIs behind
/// a picture as the start of the next access unit: GStreamer's h264parse dates them one
/// nominal frame interval (the SPS's VUI timing) after the picture, and the demuxer's segment
/// drops whatever is dated at or past the file's end. ONVIF's validator, which reads files
/// through them, then never sees the last GOP's signature. So that frame lasts to the first
/// whole millisecond past the next frame's nominal time (34 ms at 30 fps, 41 ms at 25), or
/// longer where its own duration already is.
enum LastFrameDuration {
    /// `durationMs` in milliseconds; `frameRate`: the stream's nominal rate (the encoder's, or
    /// what libav reads from the stream); an unknown rate leaves the duration as it is.
    static func milliseconds(atLeast durationMs: Int64, frameRate: AVRational) -> Int64 {
        guard frameRate.num > 0, frameRate.den > 0 else { return durationMs }
        let pastNextFrameMs = 1000 * Int64(frameRate.den) / Int64(frameRate.num) + 1
        return max(durationMs, pastNextFrameMs)
    }
}
