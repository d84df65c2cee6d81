/// Why the store deleted a chunk, as the log and /metrics tell it.
public enum EvictionCause: String, Sendable, CaseIterable {
    /// To stay under the cap (or above the free-space floor of a nearly full file system).
    case cap
    /// Its last frame is older than `videoBufferMaxAgeHours`.
    case age
}

/// Chunks and bytes deleted for one cause since the store opened.
public struct EvictionTally: Sendable, Equatable {
    public var chunks = 0
    public var bytes: Int64 = 0

    public init() {}

    mutating func add(_ chunk: ChunkRecord) {
        chunks += 1
        bytes += chunk.totalBytes
    }
}
