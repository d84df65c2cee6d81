/// One sample as the fragments describe it, with its absolute place in the file.
struct FragmentSample {
    let offset: UInt64
    let size: UInt32
    let duration: UInt32
    let compositionOffset: Int32
    let isSync: Bool
}

/// A run of samples stored back to back (one `trun`): one chunk in the sample tables.
struct SampleRun {
    let samples: Range<Int>
}

/// The samples of every `moof` of a one-track fragmented file, in decode order.
struct FragmentSamples {
    private(set) var samples: [FragmentSample] = []
    private(set) var runs: [SampleRun] = []

    /// Defaults a `tfhd` may leave to the `trex` of the initial `moov`.
    struct Defaults {
        var duration: UInt32 = 0
        var size: UInt32 = 0
        var flags: UInt32 = 0

        init() {}

        /// The `trex` in `moov/mvex`, or zeros when there is none.
        init(movie: [UInt8]) throws {
            let root = try ChildBox.children(of: movie, in: 0..<movie.count, parent: "file")
            guard let moov = root.first(where: { $0.type == "moov" }),
                let mvex = try ChildBox.children(of: movie, in: moov.payload, parent: "moov").first(where: { $0.type == "mvex" }),
                let trex = try ChildBox.children(of: movie, in: mvex.payload, parent: "mvex").first(where: { $0.type == "trex" })
            else { return }
            var cursor = BoxCursor(movie, boxType: "trex", range: trex.payload)
            _ = try cursor.versionAndFlags()
            try cursor.skip(8)  // track_ID, default_sample_description_index
            duration = try cursor.uint32()
            size = try cursor.uint32()
            flags = try cursor.uint32()
        }
    }

    /// More samples than an hour-long chunk (the longest `videoChunkDurationMs`) at 240 fps.
    static let maximumSamples = 1 << 21

    /// How many samples the fragments may describe in all: a file of N bytes holds fewer
    /// than N samples, so the finisher passes its size.
    let sampleLimit: Int

    init(sampleLimit: Int = maximumSamples) {
        self.sampleLimit = min(sampleLimit, Self.maximumSamples)
    }

    struct TooManySamples: Error, CustomStringConvertible {
        let limit: Int
        var description: String { "the fragments describe more than \(limit) samples, more than the file can hold" }
    }

    /// ISO/IEC 14496-12 sample flags: sample_is_non_sync_sample.
    private static let nonSyncFlag: UInt32 = 0x0001_0000

    mutating func add(moof bytes: [UInt8], at moofOffset: UInt64, defaults: Defaults) throws {
        for traf in try ChildBox.children(of: bytes, in: 8..<bytes.count, parent: "moof") where traf.type == "traf" {
            var trackDefaults = defaults
            var baseOffset = moofOffset
            var nextDataOffset: UInt64?
            for box in try ChildBox.children(of: bytes, in: traf.payload, parent: "traf") {
                var cursor = BoxCursor(bytes, boxType: box.type, range: box.payload)
                switch box.type {
                case "tfhd":
                    let flags = try cursor.versionAndFlags().flags
                    try cursor.skip(4)  // track_ID
                    if flags & 0x01 != 0 { baseOffset = try cursor.uint64() }
                    if flags & 0x02 != 0 { try cursor.skip(4) }  // sample_description_index: one description
                    if flags & 0x08 != 0 { trackDefaults.duration = try cursor.uint32() }
                    if flags & 0x10 != 0 { trackDefaults.size = try cursor.uint32() }
                    if flags & 0x20 != 0 { trackDefaults.flags = try cursor.uint32() }
                case "trun":
                    nextDataOffset = try addRun(&cursor, baseOffset: baseOffset, following: nextDataOffset, defaults: trackDefaults)
                default:
                    continue
                }
            }
        }
    }

    /// Drops the last samples while they run past `end` (where a torn file's data stops).
    mutating func dropSamples(endingAfter end: UInt64) {
        while let last = samples.last, last.offset + UInt64(last.size) > end { samples.removeLast() }
        while let run = runs.last, run.samples.upperBound > samples.count {
            runs.removeLast()
            if run.samples.lowerBound < samples.count { runs.append(SampleRun(samples: run.samples.lowerBound..<samples.count)) }
        }
    }

    /// Reads one `trun`; returns where its data ends (where a next `trun` without a data offset begins).
    private mutating func addRun(_ cursor: inout BoxCursor, baseOffset: UInt64, following: UInt64?, defaults: Defaults) throws -> UInt64 {
        let (version, flags) = try cursor.versionAndFlags()
        let count = Int(try cursor.uint32())
        var offset = following ?? baseOffset
        if flags & 0x001 != 0 {
            // A data offset before the file's start or past 2^63 is damage (it trapped: the
            // guided fuzz targets' finding), not an offset.
            let (moved, overflow) = Int64(bitPattern: baseOffset).addingReportingOverflow(Int64(Int32(bitPattern: try cursor.uint32())))
            guard !overflow, moved >= 0, baseOffset <= UInt64(Int64.max) else { throw BoxCursor.Truncated(boxType: "trun") }
            offset = UInt64(moved)
        }
        let firstFlags = flags & 0x004 != 0 ? try cursor.uint32() : nil
        let fieldBytes = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count * 4
        // A count larger than the box could describe is damage, not a reason to reserve memory
        // for it; a run without per-sample fields describes any count in no bytes, so the
        // samples are held to `sampleLimit` (the fuzz targets' findings: 2^32 - 1 samples in
        // one run, then millions over many runs of a 60 KB file).
        guard count * fieldBytes <= cursor.remaining else { throw BoxCursor.Truncated(boxType: "trun") }
        guard count <= sampleLimit - samples.count else { throw TooManySamples(limit: sampleLimit) }
        let first = samples.count
        samples.reserveCapacity(samples.count + count)
        for index in 0..<count {
            let duration = flags & 0x100 != 0 ? try cursor.uint32() : defaults.duration
            let size = flags & 0x200 != 0 ? try cursor.uint32() : defaults.size
            var sampleFlags = flags & 0x400 != 0 ? try cursor.uint32() : defaults.flags
            if index == 0, let firstFlags { sampleFlags = firstFlags }
            let composition: Int32 =
                if flags & 0x800 == 0 { 0 } else if version == 0 { Int32(clamping: try cursor.uint32()) } else {
                    Int32(bitPattern: try cursor.uint32())
                }
            samples.append(
                FragmentSample(
                    offset: offset, size: size, duration: duration, compositionOffset: composition,
                    isSync: sampleFlags & Self.nonSyncFlag == 0))
            let (next, overflow) = offset.addingReportingOverflow(UInt64(size))
            guard !overflow else { throw BoxCursor.Truncated(boxType: "trun") }
            offset = next
        }
        if count > 0 { runs.append(SampleRun(samples: first..<samples.count)) }
        return offset
    }
}
