import Foundation

/// What a node says about itself in the bucket (`<prefix>node.json`, and the same document
/// under `allspark-fleet/<id>.json` so the fleet is listed without walking every prefix):
/// enough for `fleet list` and `fleet fetch` to find it, reach it, and tell its gaps apart.
/// Never holds the token.
public struct NodeRecord: Sendable, Codable, Equatable {
    public static let version = 1
    /// Where every node's copy lives: one listing finds the whole fleet.
    public static let fleetPrefix = "allspark-fleet/"
    /// Past runs kept (start and last-seen times), newest last.
    static let runsKept = 100

    public enum State: String, Sendable, Codable { case running, stopped }

    /// One run of the node process: from start to the last time it wrote its record.
    public struct Run: Sendable, Codable, Equatable {
        public var startMs: Int64
        public var lastSeenMs: Int64
    }

    /// First and last frame times, epoch ms; nil when there is nothing.
    public struct Extent: Sendable, Codable, Equatable {
        public var firstMs: Int64
        public var lastMs: Int64
    }

    public struct Clock: Sendable, Codable, Equatable {
        public var synchronized: Bool
        public var estimatedErrorMs: Double
        public var maximumErrorMs: Double
    }

    public var recordVersion = Self.version
    public var id: String
    public var name: String
    public var state: State
    /// Every address the API answers on, with scheme and port (`http://10.0.0.5:8090`).
    public var apiURLs: [String]
    public var version: String
    /// The kernel clock when the record was written; nil when it could not be read.
    public var clock: Clock?
    public var ring: Extent?
    public var archive: Extent?
    /// The key prefix of the node's archive (its chunks and manifests).
    public var archivePrefix: String
    public var lastSeenMs: Int64
    public var runs: [Run]
    /// Frame times of chunks the ring evicted before they were archived (lost for good).
    public var evictedBeforeArchive: [Extent]
    /// The trust anchor (PEM) the node's footage is signed under, so `fleet fetch` checks
    /// every node's footage without anyone handing out certificates; nil when it does not
    /// sign (or its key is not made yet).
    public var signingAnchorPEM: String?

    public static func key(prefix: String) -> String { prefix + "node.json" }
    public static func fleetKey(id: String) -> String { fleetPrefix + id + ".json" }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }

    static func decode(_ bytes: some Collection<UInt8>) throws -> NodeRecord {
        try JSONDecoder().decode(NodeRecord.self, from: Data(bytes))
    }
}
