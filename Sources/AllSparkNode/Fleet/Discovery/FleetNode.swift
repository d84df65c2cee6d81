import Foundation

/// One node as the fleet sees it: merged by id from its bucket record and its mDNS
/// announcement, and whether it answers now.
public struct FleetNode: Sendable, Codable, Equatable {
    public enum Source: String, Sendable, Codable { case mdns, bucket }

    public struct Live: Sendable, Codable, Equatable {
        /// The URL that answered /api/health.
        public var url: String
        public var status: String
        public var ring: NodeRecord.Extent?
        public var clock: NodeRecord.Clock?
    }

    public var id: String
    public var name: String
    /// Where the node may be reached: its mDNS address first, then its record's URLs.
    public var urls: [String]
    public var foundBy: [Source]
    /// Its bucket record, when it has an archive.
    public var record: NodeRecord?
    /// Set when it answered /api/health during this look.
    public var live: Live? { didSet { online = live != nil } }
    /// Whether it answered during this look (`live` is set): said plainly in the JSON, so a
    /// script need not infer it.
    public private(set) var online = false
    public var version: String?
    /// Why it did not answer, when it did not.
    public var unreachable: String?

    public init(
        id: String, name: String, urls: [String], foundBy: [Source], record: NodeRecord? = nil, live: Live? = nil,
        version: String? = nil, unreachable: String? = nil
    ) {
        self.id = id
        self.name = name
        self.urls = urls
        self.foundBy = foundBy
        self.record = record
        self.live = live
        self.online = live != nil
        self.version = version
        self.unreachable = unreachable
    }

    public var clock: NodeRecord.Clock? { live?.clock ?? record?.clock }
    public var ring: NodeRecord.Extent? { live?.ring ?? record?.ring }

    /// A warning when the node's clock is not synchronised: its chunk times may be off.
    public var clockWarning: String? {
        guard let clock else { return "clock state unknown" }
        return clock.synchronized ? nil : "the node's clock is not synchronised: its chunk times may be off"
    }
}
