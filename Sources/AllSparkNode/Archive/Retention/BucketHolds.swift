import Foundation
import NIOCore

/// Holds placed in the bucket for one node by `fleet hold` while the node was down, so that
/// its archive keeps the span until the node is back and takes them into its own ring
/// (`BucketHoldsIntake`). Under the node's archive prefix:
///
/// - `holds/<id>.json`: one object per hold, waiting for the node (the holds file's format,
///   a list of one). One object per hold, never a shared record read, changed and written
///   whole: two `fleet hold`s at once write two objects and neither is lost, on any S3.
/// - `holds.json`: the single record `fleet hold` wrote before; still read, never written.
/// - `holds-taken/<id>.json`: the node took the hold into its ring (which node, when, what).
///   A taken hold is the node's own from then on: its holds file keeps it (ring and archive)
///   until it is released there, and the bucket no longer counts it.
///
/// The holds waiting are those of the first two, by id, less the taken ones. An object that
/// does not parse stops the archive's age deletion, never reads as "no holds".
public struct BucketHolds: Sendable {
    let bucket: any HoldsBucket
    let layout: ArchiveLayout

    public init(client: S3Client, layout: ArchiveLayout) {
        self.init(bucket: client, layout: layout)
    }

    init(bucket: any HoldsBucket, layout: ArchiveLayout) {
        self.bucket = bucket
        self.layout = layout
    }

    /// What the bucket has for this node: the holds waiting (lapsed ones too), the ids taken,
    /// and the objects that could not be read (key and why).
    public struct Scan: Sendable, Equatable {
        public var waiting: [Waiting] = []
        public var takenIDs: Set<String> = []
        public var unreadable: [Unreadable] = []

        public struct Waiting: Sendable, Equatable {
            public let hold: Hold
            /// Where it is: `holds/<id>.json`, or the old record `holds.json`.
            public let key: String
        }

        public struct Unreadable: Sendable, Equatable, CustomStringConvertible {
            public let key: String
            public let reason: String
            public var description: String { "\(key): \(reason)" }
        }
    }

    public func scan() async throws -> Scan {
        var scan = Scan()
        for key in try await bucket.keys(prefix: layout.takenHoldsPrefix) {
            if let id = Self.id(of: key, under: layout.takenHoldsPrefix) { scan.takenIDs.insert(id) }
        }
        var seen: Set<String> = []
        for key in try await bucket.keys(prefix: layout.waitingHoldsPrefix) where key.hasSuffix(".json") {
            guard let holds = try await holds(at: key, into: &scan) else { continue }
            for hold in holds where !seen.contains(hold.id) && !scan.takenIDs.contains(hold.id) {
                seen.insert(hold.id)
                scan.waiting.append(.init(hold: hold, key: key))
            }
        }
        // The old single record: what it has that no object of its own has.
        for hold in try await holds(at: layout.holdsKey, into: &scan) ?? [] where !seen.contains(hold.id) && !scan.takenIDs.contains(hold.id) {
            seen.insert(hold.id)
            scan.waiting.append(.init(hold: hold, key: layout.holdsKey))
        }
        return scan
    }

    private func holds(at key: String, into scan: inout Scan) async throws -> [Hold]? {
        guard let bytes = try await bucket.object(key: key, upTo: 4 << 20) else { return nil }
        do {
            return try HoldsFile.decode(Data(bytes))
        } catch {
            scan.unreadable.append(.init(key: key, reason: error.description))
            return nil
        }
    }

    /// The holds waiting in the bucket (the archive's age deletion keeps what they cover).
    /// Throws when an object cannot be read, rather than read it as no holds.
    public func read() async throws -> [Hold] {
        let scan = try await scan()
        if let bad = scan.unreadable.first {
            throw HoldError.unreadableFile(path: "\(bucket.name)/\(bad.key)", reason: bad.reason)
        }
        return scan.waiting.map(\.hold)
    }

    /// Puts `hold` in its own object, unless one with its id is there already (waiting or taken).
    /// Returns the object's key.
    @discardableResult
    public func add(_ hold: Hold) async throws -> String {
        let key = layout.waitingHoldKey(id: hold.id)
        guard try await !bucket.exists(key: key), try await !bucket.exists(key: layout.takenHoldKey(id: hold.id)) else { return key }
        try await bucket.write(key: key, bytes: Array(try HoldsFile.encode([hold])))
        return key
    }

    /// Records that `node` took `hold` into its ring, then removes its waiting object (the old
    /// record is not rewritten: the taken record is what says it is taken).
    public func markTaken(_ hold: Hold, from key: String, node: String, nowMs: Int64 = WallClock.nowMs()) async throws {
        let record = TakenRecord(format: TakenRecord.format, hold: hold, takenMs: nowMs, node: node)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try await bucket.write(key: layout.takenHoldKey(id: hold.id), bytes: Array(try encoder.encode(record)))
        if key != layout.holdsKey { try await bucket.remove(key: key) }
    }

    /// Removes the object of a hold that lapsed before its node took it.
    public func removeLapsed(_ waiting: Scan.Waiting) async throws {
        if waiting.key != layout.holdsKey { try await bucket.remove(key: waiting.key) }
    }

    /// What `holds-taken/<id>.json` says: which node took the hold, and when.
    struct TakenRecord: Codable, Equatable {
        static let format = "allspark-hold-taken/1"
        let format: String
        let hold: Hold
        let takenMs: Int64
        let node: String
    }

    static func id(of key: String, under prefix: String) -> String? {
        guard key.hasPrefix(prefix), key.hasSuffix(".json") else { return nil }
        let id = String(key.dropFirst(prefix.count).dropLast(".json".count))
        return id.isEmpty ? nil : id
    }
}

extension ArchiveLayout {
    /// `fleet hold`'s holds waiting for this node, one object each (`BucketHolds`).
    public var waitingHoldsPrefix: String { prefix + "holds/" }
    public func waitingHoldKey(id: String) -> String { waitingHoldsPrefix + id + ".json" }
    /// The holds this node took from the bucket into its ring.
    public var takenHoldsPrefix: String { prefix + "holds-taken/" }
    public func takenHoldKey(id: String) -> String { takenHoldsPrefix + id + ".json" }
}

/// The object calls `BucketHolds` makes: S3Client's, or a test's.
protocol HoldsBucket: Sendable {
    var name: String { get }
    /// Every key under `prefix`, in key order.
    func keys(prefix: String) async throws -> [String]
    /// The object's bytes (at most `limit`), nil when there is none.
    func object(key: String, upTo limit: Int) async throws -> [UInt8]?
    func exists(key: String) async throws -> Bool
    func write(key: String, bytes: [UInt8]) async throws
    func remove(key: String) async throws
}

extension S3Client: HoldsBucket {
    var name: String { bucket }

    func keys(prefix: String) async throws -> [String] {
        var keys: [String] = []
        // At most `BucketListingLimit.maximumKeys`: the intake lists these every minute.
        try await BucketListingLimit.forEachPage(of: self, prefix: prefix) { page in
            keys += page
            return true
        }
        return keys
    }

    func object(key: String, upTo limit: Int) async throws -> [UInt8]? {
        guard let response = try await get(key: key) else { return nil }
        return Array(buffer: try await response.body.collect(upTo: limit))
    }

    func exists(key: String) async throws -> Bool { try await head(key: key) != nil }

    func write(key: String, bytes: [UInt8]) async throws {
        try await put(key: key, bytes: bytes, contentType: "application/json", sha256: FileDigest.sha256Hex(of: bytes))
    }

    func remove(key: String) async throws { try await delete(key: key) }
}
