/// Why a fragmented chunk could not be turned into a progressive one. The part file is left
/// as it was (still fragmented and recoverable) unless the message says otherwise.
struct FinishingError: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "finishing \(path): \(reason)" }
}
