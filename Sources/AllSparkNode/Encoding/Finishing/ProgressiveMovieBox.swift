/// The `moov` of the finished file: the initial `moov`'s boxes, with true durations and the
/// first frame's wall-clock time in `mvhd`, `tkhd` and `mdhd`, full sample tables, and no
/// `mvex` (so readers take it for an ordinary file, not a fragmented one).
struct ProgressiveMovieBox {
    let movie: [UInt8]
    let tables: SampleTables
    /// Seconds since 1904-01-01 UTC, as MP4 and QuickTime count time.
    let creationTime: UInt64

    /// Seconds from 1904-01-01 to 1970-01-01.
    static let secondsFrom1904To1970: UInt64 = 2_082_844_800

    static func creationTime(epochMs: Int64) -> UInt64 { UInt64(max(0, epochMs) / 1000) + secondsFrom1904To1970 }

    func build() throws -> [UInt8] {
        let root = try ChildBox.children(of: movie, in: 0..<movie.count, parent: "file")
        guard root.count == 1, let moov = root.first, moov.type == "moov" else { throw Malformed("the initial moov is not one box") }
        let children = try ChildBox.children(of: movie, in: moov.payload, parent: "moov")
        guard children.filter({ $0.type == "trak" }).count == 1 else { throw Malformed("it has more or fewer tracks than one") }
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { throw Malformed("moov has no mvhd") }
        let movieTimeScale = try Self.timeScale(of: mvhd, in: movie)
        let mediaTimeScale = try mediaHeaderTimeScale(children)
        guard movieTimeScale > 0, mediaTimeScale > 0 else { throw Malformed("a time scale is 0") }
        // The media duration in the movie's time scale, rounded; a damaged part's durations
        // and scales can put the product past 64 bits.
        let (scaled, overflow) = tables.mediaDuration.multipliedReportingOverflow(by: UInt64(movieTimeScale))
        guard !overflow, scaled <= UInt64.max - UInt64(mediaTimeScale) / 2 else {
            throw Malformed("its duration does not fit 64 bits in the movie's time scale")
        }
        let movieDuration = (scaled + UInt64(mediaTimeScale) / 2) / UInt64(mediaTimeScale)
        var writer = BoxWriter()
        try writer.box("moov") { moovWriter in
            for child in children {
                switch child.type {
                case "mvhd": try writeTimeHeader(child, duration: movieDuration, into: &moovWriter)
                case "trak": try writeTrack(child, movieDuration: movieDuration, into: &moovWriter)
                case "mvex": continue
                default: moovWriter.append(contentsOf: movie[child.range])
                }
            }
        }
        return writer.bytes
    }

    struct Malformed: Error, CustomStringConvertible {
        let reason: String
        init(_ reason: String) { self.reason = reason }
        var description: String { "unexpected initial moov: \(reason)" }
    }

    private func writeTrack(_ trak: ChildBox, movieDuration: UInt64, into writer: inout BoxWriter) throws {
        try writer.box("trak") { trakWriter in
            for child in try ChildBox.children(of: movie, in: trak.payload, parent: "trak") {
                switch child.type {
                case "tkhd":
                    try writeTimeHeader(child, duration: movieDuration, into: &trakWriter)
                    writeEditList(movieDuration: movieDuration, into: &trakWriter)
                case "edts": continue
                case "mdia": try writeMedia(child, into: &trakWriter)
                default: trakWriter.append(contentsOf: movie[child.range])
                }
            }
        }
    }

    /// Only when the first frame is not shown at media time 0 (B-frames): the edit starts the
    /// track there.
    private func writeEditList(movieDuration: UInt64, into writer: inout BoxWriter) {
        let start = tables.firstPresentationTime
        guard start != 0 else { return }
        writer.box("edts") { edts in
            edts.fullBox("elst", version: 1) { elst in
                elst.append(UInt32(1))
                elst.append(movieDuration)
                elst.append(UInt64(bitPattern: start))
                elst.append(UInt32(0x0001_0000))  // media_rate 1.0
            }
        }
    }

    private func writeMedia(_ mdia: ChildBox, into writer: inout BoxWriter) throws {
        try writer.box("mdia") { mdiaWriter in
            for child in try ChildBox.children(of: movie, in: mdia.payload, parent: "mdia") {
                switch child.type {
                case "mdhd": try writeTimeHeader(child, duration: tables.mediaDuration, into: &mdiaWriter)
                case "minf": try writeMediaInformation(child, into: &mdiaWriter)
                default: mdiaWriter.append(contentsOf: movie[child.range])
                }
            }
        }
    }

    private static let sampleTableTypes: Set<String> = ["stts", "ctts", "stss", "stsc", "stsz", "stz2", "stco", "co64"]

    private func writeMediaInformation(_ minf: ChildBox, into writer: inout BoxWriter) throws {
        try writer.box("minf") { minfWriter in
            for child in try ChildBox.children(of: movie, in: minf.payload, parent: "minf") {
                guard child.type == "stbl" else {
                    minfWriter.append(contentsOf: movie[child.range])
                    continue
                }
                try minfWriter.box("stbl") { stbl in
                    for box in try ChildBox.children(of: movie, in: child.payload, parent: "stbl")
                    where !Self.sampleTableTypes.contains(box.type) {
                        stbl.append(contentsOf: movie[box.range])
                    }
                    tables.write(into: &stbl)
                }
            }
        }
    }

    /// `mvhd`, `tkhd` and `mdhd` share a layout: version and flags, creation and modification
    /// times (32 or 64 bits), one 4-byte field (`tkhd`: two), the duration (32 or 64 bits),
    /// then fields copied as they are. Written as version 0 while the values fit in 32 bits.
    private func writeTimeHeader(_ box: ChildBox, duration: UInt64, into writer: inout BoxWriter) throws {
        var cursor = BoxCursor(movie, boxType: box.type, range: box.payload)
        let (version, flags) = try cursor.versionAndFlags()
        let wide = version == 1
        try cursor.skip(wide ? 16 : 8)
        let middle = try cursor.take(box.type == "tkhd" ? 8 : 4)
        try cursor.skip(wide ? 8 : 4)
        let rest = try cursor.take(cursor.remaining)
        let needsWide = creationTime > UInt64(UInt32.max) || duration > UInt64(UInt32.max)
        writer.fullBox(box.type, version: needsWide ? 1 : 0, flags: flags) { header in
            for _ in 0..<2 {
                if needsWide { header.append(creationTime) } else { header.append(UInt32(creationTime)) }
            }
            header.append(contentsOf: middle)
            if needsWide { header.append(duration) } else { header.append(UInt32(duration)) }
            header.append(contentsOf: rest)
        }
    }

    private static func timeScale(of box: ChildBox, in bytes: [UInt8]) throws -> UInt32 {
        var cursor = BoxCursor(bytes, boxType: box.type, range: box.payload)
        let version = try cursor.versionAndFlags().version
        try cursor.skip(version == 1 ? 16 : 8)
        return try cursor.uint32()
    }

    private func mediaHeaderTimeScale(_ moovChildren: [ChildBox]) throws -> UInt32 {
        var level = moovChildren
        for (parent, child) in [("moov", "trak"), ("trak", "mdia")] {
            guard let box = level.first(where: { $0.type == child }) else { throw Malformed("\(parent) has no \(child)") }
            level = try ChildBox.children(of: movie, in: box.payload, parent: child)
        }
        guard let mdhd = level.first(where: { $0.type == "mdhd" }) else { throw Malformed("mdia has no mdhd") }
        return try Self.timeScale(of: mdhd, in: movie)
    }
}
