import Foundation

/// What a fleet fetch wrote, as `DIR/manifest.json`: per node, each chunk and where it came
/// from, each gap in the range with its reason, and the node's clock; for the whole fetch,
/// whether everything that exists was fetched and, if not, why.
public struct FetchReport: Sendable, Codable {
    public var startMs: Int64
    public var endMs: Int64
    public var startISO: String
    public var endISO: String
    public var finishedAtMs: Int64
    /// True only when every chunk that exists on a node or in the bucket was fetched.
    public var complete: Bool
    public var bucket: BucketState?
    public var nodes: [NodeReport]
    /// Why `complete` is false: one line per reason.
    public var problems: [String]

    public struct BucketState: Sendable, Codable {
        public var endpoint: String
        public var bucket: String
        /// Why it could not be read, nil when it could.
        public var error: String?
    }

    public struct NodeReport: Sendable, Codable {
        public var id: String
        public var name: String
        /// The node's folder under DIR.
        public var folder: String
        public var state: String
        /// The URL it answered on, or its last-seen time when offline.
        public var url: String?
        public var lastSeenMs: Int64?
        public var clock: NodeRecord.Clock?
        public var clockWarning: String?
        /// The clip of the range (`--clip`), when one was made by the node.
        public var clip: FileEntry?
        public var chunks: [ChunkEntry]
        public var gaps: [Gap]
        public var errors: [String]
        public var bytes: Int64
    }

    public struct FileEntry: Sendable, Codable {
        public var file: String
        public var bytes: Int64
        /// The media signatures as fetched (`MediaSigningVerifier`, against the node's trust anchor from its record, else the file's own certificate).
        public var signature: SignatureCheck?
    }

    public struct ChunkEntry: Sendable, Codable {
        public enum Source: String, Sendable, Codable { case node, bucket }
        public var file: String
        public var timestampsFile: String
        public var startMs: Int64
        public var endMs: Int64
        public var frames: Int
        public var bytes: Int64
        public var timestampsBytes: Int64
        public var source: Source
        /// Present when checked against the archive's manifest.
        public var sha256: String?
        /// Absent when only the node's clip of the range was fetched.
        public var signature: SignatureCheck?
    }

    public struct Gap: Sendable, Codable, Equatable {
        public enum Reason: String, Sendable, Codable {
            case nodeDown = "node down"
            case notRecorded = "not recorded"
            case evictedBeforeArchiving = "evicted before archiving"
            case noArchive = "no archive"
            case fetchFailed = "fetch failed"
        }
        public var startMs: Int64
        public var endMs: Int64
        public var reason: Reason
        public var detail: String
        /// Footage is known to exist for this gap (somewhere this fetch could not read it).
        public var footageExists: Bool
    }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
