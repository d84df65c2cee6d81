/// The top-level boxes of a fragmented MP4/MOV as `FragmentedMuxer` leaves it: `ftyp`, the
/// initial `moov` (no samples, with `mvex`), `moof`+`mdat` pairs, `mfra`. Only box headers,
/// the `moov` and the `moof`s are read, never the media.
struct FragmentedFileLayout {
    /// Where the initial `moov` starts: the first byte the finished file's `mdat` covers.
    let initialMovieOffset: UInt64
    let initialMovie: [UInt8]
    let fragments: [(offset: UInt64, bytes: [UInt8])]
    /// Where the new `moov` goes: the end of the last complete box (a `moov` appended by an
    /// interrupted earlier finish is overwritten).
    var appendOffset: UInt64
    /// Set when the last fragment's `mdat` is torn (a power cut took the end of the file):
    /// where its data ends. Its samples that end by then are whole; `appendOffset` is then
    /// that fragment's `moof`, for the finish to move past the whole samples it keeps.
    let tornDataEnd: UInt64?

    /// - Parameter keepingIntactPrefix: what a killed writer left: the file ends at the first
    ///   torn box, a last `moof` without its `mdat` is left out, and one whose `mdat` is torn
    ///   is kept with `tornDataEnd`.
    static func scan(_ file: FinishingFile, keepingIntactPrefix: Bool = false) throws -> FragmentedFileLayout {
        let fileSize = try file.size()
        var offset: UInt64 = 0
        var movie: (offset: UInt64, bytes: [UInt8])?
        var fragments: [(offset: UInt64, bytes: [UInt8])] = []
        /// Where the `ftyp`, which must be the file's first box, ends.
        var fileTypeEnd: UInt64?
        /// Whether the last `moof` has its `mdat` after it.
        var lastFragmentHasData = true
        while offset < fileSize {
            let header: BoxHeader
            do {
                header = try readHeader(file, at: offset, fileSize: fileSize)
            } catch where keepingIntactPrefix {
                if !lastFragmentHasData, let last = fragments.last, try isTornMediaData(file, at: offset, fileSize: fileSize) {
                    return try layout(file, movie, fragments, appendOffset: last.offset, tornDataEnd: fileSize)
                }
                break
            }
            let end = offset + header.size
            switch header.type {
            case "ftyp":
                // One, first: what the finish makes must read as finished (`ftyp`, `mdat`, `moov`).
                guard offset == 0 else { throw refusal(file, "an ftyp that is not its first box") }
                fileTypeEnd = end
            case "moov" where movie == nil:
                guard offset == fileTypeEnd, header.size >= 16 else { throw refusal(file, "its first moov is not right after ftyp") }
                movie = (offset, try file.read(count: Int(header.size), at: offset))
            case "moov":
                // A finish that stopped before its last step appended this; it is written again.
                return try layout(file, movie, fragments, appendOffset: offset)
            case "moof":
                fragments.append((offset, try file.read(count: Int(header.size), at: offset)))
                lastFragmentHasData = false
            case "mdat" where movie == nil:
                throw refusal(file, "it is already a progressive file (mdat before any fragment)")
            case "mdat":
                lastFragmentHasData = true
            default:
                break
            }
            offset = end
        }
        if keepingIntactPrefix, !lastFragmentHasData, let last = fragments.popLast() { offset = last.offset }
        return try layout(file, movie, fragments, appendOffset: offset)
    }

    /// Whether the file is already what a finish makes: `ftyp`, `mdat`, `moov`, all whole.
    static func isProgressive(_ file: FinishingFile) throws -> Bool {
        let fileSize = try file.size()
        var offset: UInt64 = 0
        var types: [String] = []
        while offset < fileSize, types.count < 4 {
            guard let header = try? readHeader(file, at: offset, fileSize: fileSize) else { return false }
            types.append(header.type)
            offset += header.size
        }
        return types == ["ftyp", "mdat", "moov"]
    }

    private static func layout(
        _ file: FinishingFile, _ movie: (offset: UInt64, bytes: [UInt8])?, _ fragments: [(offset: UInt64, bytes: [UInt8])],
        appendOffset: UInt64, tornDataEnd: UInt64? = nil
    ) throws -> FragmentedFileLayout {
        guard let movie else { throw refusal(file, "it has no moov") }
        guard !fragments.isEmpty else { throw refusal(file, "it has no fragment") }
        return FragmentedFileLayout(
            initialMovieOffset: movie.offset, initialMovie: movie.bytes, fragments: fragments, appendOffset: appendOffset,
            tornDataEnd: tornDataEnd)
    }

    /// Whether the box at `offset` is an `mdat` whose header is whole but whose data runs past the end.
    private static func isTornMediaData(_ file: FinishingFile, at offset: UInt64, fileSize: UInt64) throws -> Bool {
        guard fileSize - offset >= 16 else { return false }
        var cursor = BoxCursor(try file.read(count: 16, at: offset), boxType: "top-level")
        guard let header = try? BoxHeader.read(&cursor) else { return false }
        return header.type == "mdat" && header.size > fileSize - offset
    }

    private static func readHeader(_ file: FinishingFile, at offset: UInt64, fileSize: UInt64) throws -> BoxHeader {
        guard fileSize - offset >= 8 else { throw refusal(file, "it ends inside a box header at \(offset)") }
        let bytes = try file.read(count: Int(min(16, fileSize - offset)), at: offset)
        var cursor = BoxCursor(bytes, boxType: "top-level")
        let header = try BoxHeader.read(&cursor)
        guard header.size >= UInt64(header.headerBytes), header.size <= fileSize - offset else {
            throw refusal(file, "its \(header.type) box at \(offset) is torn (\(header.size) bytes, \(fileSize - offset) left)")
        }
        return header
    }

    private static func refusal(_ file: FinishingFile, _ reason: String) -> FinishingError {
        FinishingError(path: file.path, reason: "not a complete fragmented file: \(reason)")
    }
}
