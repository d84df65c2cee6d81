import CFFmpeg

/// The most one libav allocation may ask for in this process. libav sizes some tables from
/// counts a file states before it reads them: a 1.9 KB part file made the mov demuxer ask
/// for 855 MB for its index (part-recovery's fuzz finding). What real files need stays well
/// below the bound: a 4K frame is 12 MB, and the index of a 24-hour file handed to `verify`
/// (30 fps, 24 bytes an entry) is 66 MB with libav's slack.
public enum LibavAllocationLimit {
    public static let bytes = 256 << 20

    /// Sets the bound for every later libav allocation; call once, before libav reads a file.
    public static func install() {
        av_max_alloc(bytes)
    }
}
