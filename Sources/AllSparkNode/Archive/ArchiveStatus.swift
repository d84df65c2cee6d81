/// A snapshot of the archive uploader, for `/api/status`, `/metrics`, health and the dashboard.
public struct ArchiveStatus: Sendable, Equatable {
    public enum Phase: String, Sendable {
        case starting, uploading, idle, retrying
    }

    public let phase: Phase
    public let lastError: String?
    public let lastErrorAtMs: Int64?
    /// The last failure was the bucket's or the credentials' fault, not the network's.
    public let configurationProblem: Bool
    public let chunksArchived: Int
    /// Chunks found whole in the bucket (after a restart) and not sent again.
    public let chunksFoundArchived: Int
    public let bytesArchived: Int64
    public let uploadFailures: Int
    /// Chunks the ring evicted (recording wins) before they could be archived.
    public let evictedBeforeArchive: Int
    public let lastEvictedBeforeArchive: String?
    public let backlogChunks: Int
    public let backlogBytes: Int64
    public let oldestUnarchivedMs: Int64?
    /// Age of the oldest chunk not yet archived; 0 when none waits.
    public let lagMs: Int64
    /// Bytes uploaded over the last minute, per second.
    public let uploadBytesPerSecond: Double
    /// The last uploaded chunk's bytes over the time its upload took.
    public let lastChunkBytesPerSecond: Double?

    /// Health problems: the bucket failing, or a backlog older than the limit.
    func problems(maxLagSeconds: Int) -> [String] {
        var problems: [String] = []
        if phase == .retrying, let lastError { problems.append("archive failing: \(lastError)") }
        if lagMs > Int64(maxLagSeconds) * 1000 {
            problems.append("archive lag \(lagMs / 1000) s is over archive.maxLagSeconds (\(maxLagSeconds) s): \(backlogChunks) chunks wait")
        }
        return problems
    }

    func json(bucket: String, endpoint: String, prefix: String) -> JSONValue {
        func number(_ value: Int64?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        return .object([
            "enabled": .bool(true),
            "endpoint": .string(endpoint),
            "bucket": .string(bucket),
            "prefix": .string(prefix),
            "state": .string(phase.rawValue),
            "lastError": lastError.map { .string($0) } ?? .null,
            "lastErrorAtMs": number(lastErrorAtMs),
            "configurationProblem": .bool(configurationProblem),
            "chunksArchived": .number(Double(chunksArchived)),
            "chunksFoundArchived": .number(Double(chunksFoundArchived)),
            "bytesArchived": .number(Double(bytesArchived)),
            "uploadFailures": .number(Double(uploadFailures)),
            "evictedBeforeArchive": .number(Double(evictedBeforeArchive)),
            "lastEvictedBeforeArchive": lastEvictedBeforeArchive.map { .string($0) } ?? .null,
            "backlogChunks": .number(Double(backlogChunks)),
            "backlogBytes": .number(Double(backlogBytes)),
            "oldestUnarchivedMs": number(oldestUnarchivedMs),
            "lagMs": .number(Double(lagMs)),
            "uploadBytesPerSecond": .number(uploadBytesPerSecond),
            "lastChunkBytesPerSecond": lastChunkBytesPerSecond.map { .number($0) } ?? .null,
        ])
    }
}
