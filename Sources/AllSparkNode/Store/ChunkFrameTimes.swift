/// Each frame's wall-clock time read from a chunk file itself, for a chunk whose timestamps
/// file is missing, torn or not written yet.
enum ChunkFrameTimes {
    /// The frames' time stamp SEI when every frame has one; else (chunks from before the
    /// SEI) the packets' times after `nameStartMs`, the first frame's time in the file's
    /// name. Nil when no frame can be read.
    static func read(path: String, nameStartMs: Int64?) -> [Int64]? {
        if let probe = try? StreamTimeProbe.read(path: path), probe.isFullyStamped { return probe.frameTimesMs }
        guard let nameStartMs, let relative = try? ChunkReader(path: path).frameTimesMs(), !relative.isEmpty else { return nil }
        return relative.map { nameStartMs + $0 }
    }
}
