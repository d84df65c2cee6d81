import Foundation

/// One `Range: bytes=...` request against a file of known size (RFC 9110 §14.1.2).
struct ByteRange: Equatable {
    let first: Int
    let last: Int

    enum Parse: Equatable {
        /// No usable Range header: send the whole file.
        case whole
        case partial(ByteRange)
        /// Well-formed but outside the file: 416.
        case unsatisfiable
    }

    static func parse(_ header: String?, fileSize: Int) -> Parse {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return .whole }
            guard fileSize > 0 else { return .unsatisfiable }
            return .partial(ByteRange(first: max(0, fileSize - suffix), last: fileSize - 1))
        }
        guard let first = Int(parts[0]), first >= 0 else { return .whole }
        guard first < fileSize else { return .unsatisfiable }
        if parts[1].isEmpty { return .partial(ByteRange(first: first, last: fileSize - 1)) }
        guard let last = Int(parts[1]), last >= first else { return .whole }
        return .partial(ByteRange(first: first, last: min(last, fileSize - 1)))
    }
}
