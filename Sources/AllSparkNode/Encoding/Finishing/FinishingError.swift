/// Why a fragmented chunk could not be turned into a progressive one. The part file is left
/// as it was (still fragmented and recoverable) unless the message says otherwise.
struct FinishingError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    /// The fragments claim more samples than the file has bytes: damage no reader can make
    /// sense of, and libav's own index of it took 855 MB for a 2.9 KB file (part-recovery's
    /// fuzz finding), so recovery removes such a part rather than copying it out.
    var fragmentsAreImpossible = false

    var description: String { "finishing \(path): \(reason)" }
}
