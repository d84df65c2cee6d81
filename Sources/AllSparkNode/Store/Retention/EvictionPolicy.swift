/// Which chunks go, for every reason the store deletes footage: the one place that decides.
/// Held chunks (evidence locks) go for nothing. Chunks an upload is reading go last under
/// the cap (the cap wins over an upload, which reports the loss) and never by age (they are
/// taken at the first pass after their upload ends).
struct EvictionPolicy {
    let heldStamps: Set<String>
    let pins: [String: Int]

    /// The chunk to evict next to make room, oldest first; nil when only held chunks are left.
    func nextForRoom(in chunks: [ChunkRecord]) -> Int? {
        chunks.firstIndex { !heldStamps.contains($0.stamp) && pins[$0.stamp] == nil }
            ?? chunks.firstIndex { !heldStamps.contains($0.stamp) }
    }

    /// Chunks whose last frame is before `cutoffMs`, neither held nor being uploaded.
    func expired(in chunks: [ChunkRecord], cutoffMs: Int64) -> [ChunkRecord] {
        chunks.filter { $0.endMs < cutoffMs && !heldStamps.contains($0.stamp) && pins[$0.stamp] == nil }
    }
}
