/// A validated `uploadTimeRange` command: times arrive as epoch seconds (floating point)
/// and may be strings, null, NaN-like or missing, which are refused with a reason.
public struct UploadTimeRange: Sendable, Equatable {
    public let startMs: Int64
    public let endMs: Int64

    /// The largest time accepted (year 9999), so absurd values are refused rather than overflowing.
    static let latestSeconds = 253_402_300_799.0

    public init(startMs: Int64, endMs: Int64) {
        self.startMs = startMs
        self.endMs = endMs
    }

    public init(command: JSONValue) throws(ProtocolError) {
        let start = try Self.seconds(command["startTime"], field: "startTime")
        let end = try Self.seconds(command["endTime"], field: "endTime")
        guard start <= end else { throw .invalidField("startTime", "startTime \(start) is after endTime \(end)") }
        // Rounded to the millisecond the node stores, so a chunk's own chunkSaved times select exactly it.
        startMs = Int64((start * 1000).rounded())
        endMs = Int64((end * 1000).rounded())
    }

    private static func seconds(_ value: JSONValue?, field: String) throws(ProtocolError) -> Double {
        guard let value else { throw .invalidField(field, "\(field) is missing") }
        guard case .number(let seconds) = value else {
            throw .invalidField(field, "\(field) must be a number of epoch seconds, got \(value.rendered())")
        }
        guard seconds.isFinite, seconds >= 0, seconds <= latestSeconds else {
            throw .invalidField(field, "\(field) \(seconds) is outside 0...\(Int(latestSeconds)) epoch seconds")
        }
        return seconds
    }

    /// Chunks that overlap the range. A range of zero length is the instant itself, so an
    /// uploadTimeRange echoing a one-frame chunk's chunkSaved times still finds it.
    public func chunks(in store: ChunkStore) -> [ChunkRecord] {
        store.chunks(overlappingStartMs: startMs, endMs: endMs == startMs ? endMs + 1 : endMs)
    }

    /// The same for the archived chunks the store no longer holds.
    func archivedChunks(in archive: ArchiveCatalog, notHeldBy store: ChunkStore) async throws -> [ArchiveManifest] {
        try await archive.chunks(overlappingStartMs: startMs, endMs: endMs == startMs ? endMs + 1 : endMs, notHeldBy: store)
    }
}

public enum ProtocolError: Error, Equatable, CustomStringConvertible {
    case invalidJSON
    case notAnObject
    case invalidField(String, String)
    case unknownMessage(String)

    public var description: String {
        switch self {
        case .invalidJSON: "Invalid JSON"
        case .notAnObject: "Invalid JSON: a message must be an object with \"type\" or \"command\""
        case .invalidField(_, let reason): reason
        case .unknownMessage(let what): "Unknown message type: \(what)"
        }
    }
}
