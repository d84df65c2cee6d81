/// Turns a closed fragmented chunk into an ordinary MP4/MOV in place, without copying its
/// media (chunks live on SD cards): the sample tables are built from the fragments' `trun`s
/// with offsets to where the samples already are, the full `moov` is appended, and then the
/// initial `moov` and everything up to the new one become one `mdat`.
///
/// Crash safety: until the last step the file is the fragmented file it was plus a trailing
/// `moov` that fragment readers skip as a duplicate (and a new finish overwrites); the last
/// step is one 16-byte write inside the first sector after `ftyp`, after which the file is
/// the finished one. Either state is readable, and `ChunkRecovery` handles both.
enum ChunkFinisher {
    /// The most the finished `moov` adds beyond the initial one, for the store's reservation:
    /// per frame a size, a duration, a composition offset and a sync entry, and per fragment
    /// (at most one per frame) a chunk offset and a sample-to-chunk entry.
    static func maximumAddedBytes(frames: Int) -> Int64 { 1024 + 48 * Int64(frames) }

    /// Finishes the fragmented file at `path`; `firstFrameEpochMs` becomes its creation time.
    /// - Parameter keepingIntactPrefix: the file is what a killed writer left: its torn tail
    ///   (a fragment without its media, the part of a sample a power cut took) is cut off and
    ///   the rest finished.
    static func finish(path: String, firstFrameEpochMs: Int64, keepingIntactPrefix: Bool = false) throws {
        let file = try FinishingFile(path: path)
        let layout = try appendProgressiveMovie(to: file, firstFrameEpochMs: firstFrameEpochMs, keepingIntactPrefix: keepingIntactPrefix)
        try coverFragments(of: file, layout: layout)
    }

    /// Whether the file at `path` is finished already (a crash came after the last step).
    static func isFinished(path: String) throws -> Bool { try FragmentedFileLayout.isProgressive(FinishingFile(path: path)) }

    /// Steps 1 and 2: writes the full `moov` after the last complete box and syncs. The file
    /// stays a valid fragmented file.
    @discardableResult
    static func appendProgressiveMovie(to file: FinishingFile, firstFrameEpochMs: Int64, keepingIntactPrefix: Bool = false) throws
        -> FragmentedFileLayout
    {
        var layout = try FragmentedFileLayout.scan(file, keepingIntactPrefix: keepingIntactPrefix)
        let defaults: FragmentSamples.Defaults
        var fragments = FragmentSamples(sampleLimit: Int(clamping: try file.size()))
        do {
            defaults = try FragmentSamples.Defaults(movie: layout.initialMovie)
            for fragment in layout.fragments { try fragments.add(moof: fragment.bytes, at: fragment.offset, defaults: defaults) }
        } catch {
            var failure = FinishingError(path: file.path, reason: "reading its fragments: \(error)")
            failure.fragmentsAreImpossible = error is FragmentSamples.TooManySamples
            throw failure
        }
        if let dataEnd = layout.tornDataEnd {
            // A power cut took the end of the last fragment: its whole samples stay.
            fragments.dropSamples(endingAfter: dataEnd)
            if let last = fragments.samples.last { layout.appendOffset = max(layout.appendOffset, last.offset + UInt64(last.size)) }
        }
        guard !fragments.samples.isEmpty else { throw FinishingError(path: file.path, reason: "its fragments hold no sample") }
        if let outside = fragments.samples.first(where: { $0.offset < layout.initialMovieOffset || $0.offset + UInt64($0.size) > layout.appendOffset }) {
            throw FinishingError(path: file.path, reason: "a sample at \(outside.offset) (\(outside.size) bytes) lies outside the fragments")
        }
        let movie: [UInt8]
        do {
            movie = try ProgressiveMovieBox(
                movie: layout.initialMovie, tables: SampleTables(samples: fragments.samples, runs: fragments.runs),
                creationTime: ProgressiveMovieBox.creationTime(epochMs: firstFrameEpochMs)
            ).build()
        } catch {
            throw FinishingError(path: file.path, reason: "building its moov: \(error)")
        }
        try file.write(movie, at: layout.appendOffset)
        try file.truncate(to: layout.appendOffset + UInt64(movie.count))
        try file.sync()
        return layout
    }

    /// Step 3, the one that makes the file progressive: a 64-bit `mdat` header over the
    /// initial `moov` whose payload runs up to the appended `moov`; then syncs.
    static func coverFragments(of file: FinishingFile, layout: FragmentedFileLayout) throws {
        var header = BoxWriter()
        header.append(UInt32(1))
        header.appendType("mdat")
        header.append(layout.appendOffset - layout.initialMovieOffset)
        try file.write(header.bytes, at: layout.initialMovieOffset)
        try file.sync()
    }
}
