/// Each frame's wall-clock time read from a chunk file itself, for a chunk whose timestamps
/// file is missing, torn or not written yet.
enum ChunkFrameTimes {
    /// The frames' time stamp SEI when every frame has one and they ascend; else (chunks from
    /// before the SEI, damaged stamps) the packets' times after `nameStartMs`, the first
    /// frame's time in the file's name. Nil when no frame can be read or the times overflow.
    static func read(path: String, nameStartMs: Int64?) -> [Int64]? {
        if let probe = try? StreamTimeProbe.read(path: path), probe.isFullyStamped, isAscending(probe.frameTimesMs) {
            return probe.frameTimesMs
        }
        guard let nameStartMs, let relative = (try? ChunkReader(path: path).frameTimesMs()) ?? nil else { return nil }
        return offset(relative, by: nameStartMs)
    }

    /// `relative` (ascending, from 0) after `startMs`; nil when empty or past Int64.
    static func offset(_ relative: [Int64], by startMs: Int64) -> [Int64]? {
        guard let last = relative.last, !startMs.addingReportingOverflow(last).overflow else { return nil }
        return relative.map { startMs + $0 }
    }

    /// A chunk's records and ranges take its first time as its start and its last as its end:
    /// stamps out of order (a damaged SEI) would make a chunk that ends before it starts.
    private static func isAscending(_ times: [Int64]) -> Bool {
        zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }
    }
}
