import Foundation

/// File names as PROTOCOL.md gives them for the node: `chunk_1700000012.345.mp4` and
/// `timestamps_1700000012.345.txt` for a first frame at 1700000012345 ms. The chunk being
/// written is hidden as `.chunk_<stamp>.<ext>.part`.
public enum ChunkNaming {
    public static func stamp(forMs ms: Int64) -> String { ms.millisecondsAsDecimalSeconds }

    public static func chunkFileName(stamp: String, format: VideoFormat) -> String { "chunk_\(stamp).\(format.rawValue)" }
    public static func timestampsFileName(stamp: String) -> String { "timestamps_\(stamp).txt" }
    static func partFileName(stamp: String, format: VideoFormat) -> String { ".chunk_\(stamp).\(format.rawValue).part" }

    /// What a directory entry is, for rebuilding the index at start-up.
    enum Entry: Equatable {
        case chunk(stamp: String, format: VideoFormat)
        case timestamps(stamp: String)
        case part(stamp: String, format: VideoFormat)
        /// Our own temporary files from an interrupted write.
        case leftover
        case other
    }

    static func classify(_ name: String) -> Entry {
        if name.hasSuffix(".tmp") && (name.hasPrefix(".chunk_") || name.hasPrefix(".timestamps_")) { return .leftover }
        if name.hasPrefix(".chunk_"), name.hasSuffix(".part") {
            let body = String(name.dropFirst(".chunk_".count).dropLast(".part".count))
            if let (stamp, format) = splitChunk(body) { return .part(stamp: stamp, format: format) }
            return .other
        }
        if name.hasPrefix("chunk_") {
            if let (stamp, format) = splitChunk(String(name.dropFirst("chunk_".count))) { return .chunk(stamp: stamp, format: format) }
            return .other
        }
        if name.hasPrefix("timestamps_"), name.hasSuffix(".txt") {
            let stamp = String(name.dropFirst("timestamps_".count).dropLast(".txt".count))
            if startMs(ofStamp: stamp) != nil { return .timestamps(stamp: stamp) }
        }
        return .other
    }

    private static func splitChunk(_ body: String) -> (String, VideoFormat)? {
        guard let dot = body.lastIndex(of: ".") else { return nil }
        let stamp = String(body[..<dot])
        guard let format = VideoFormat(rawValue: String(body[body.index(after: dot)...])), startMs(ofStamp: stamp) != nil else { return nil }
        return (stamp, format)
    }

    /// The first frame's time encoded in our own stamp; used only to recover a part file
    /// whose sidecar was never written.
    static func startMs(ofStamp stamp: String) -> Int64? {
        let parts = stamp.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 3, let seconds = Int64(parts[0]), let milliseconds = Int64(parts[1]),
            seconds >= 0, parts[0].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isASCII)
        else { return nil }
        // A name anyone left in the store may hold any number: one past Int64's ms is no stamp.
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow, milliseconds >= 0, ms <= Int64.max - milliseconds else { return nil }
        return ms + milliseconds
    }
}
