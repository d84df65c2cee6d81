import Foundation

/// What the archive's age limit deleted, kept in the store directory so that
/// `allspark-node archive status` can tell it while the node runs or after it stopped.
/// Written as the holds file is (synced, renamed), after passes that deleted something or
/// failed; a damaged log only loses this account.
public struct ArchiveDeletionLog: Sendable, Codable, Equatable {
    public static let fileName = ".allspark-archive-deletions.json"
    /// The most files of the last deleting pass kept by name.
    static let namedLimit = 50

    public var chunksDeleted = 0
    public var bytesDeleted: Int64 = 0
    /// The last pass that deleted anything: when, how much, and the chunk files it took.
    public var lastDeletionMs: Int64?
    public var lastDeletionChunks = 0
    public var lastDeletionBytes: Int64 = 0
    public var lastDeletedFiles: [String] = []
    /// The last pass, whether or not it deleted anything, and its error if it failed.
    public var lastPassMs: Int64?
    public var lastPassError: String?

    public init() {}

    public static func read(storeDirectory: String) -> ArchiveDeletionLog {
        let path = Self.path(storeDirectory)
        guard let data = FileManager.default.contents(atPath: path) else { return ArchiveDeletionLog() }
        return (try? JSONDecoder().decode(ArchiveDeletionLog.self, from: data)) ?? ArchiveDeletionLog()
    }

    func write(storeDirectory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let path = Self.path(storeDirectory)
        _ = try DurableFile.write(String(decoding: try encoder.encode(self), as: UTF8.self) + "\n", to: path + ".tmp")
        try DurableFile.rename(path + ".tmp", to: path)
        DurableFile.syncDirectory(storeDirectory)
    }

    mutating func record(deleted: [ArchiveManifest], atMs nowMs: Int64) {
        lastPassMs = nowMs
        lastPassError = nil
        guard !deleted.isEmpty else { return }
        let bytes = deleted.reduce(Int64(0)) { $0 + $1.chunkBytes + $1.timestampsBytes }
        chunksDeleted += deleted.count
        bytesDeleted += bytes
        lastDeletionMs = nowMs
        lastDeletionChunks = deleted.count
        lastDeletionBytes = bytes
        lastDeletedFiles = Array(deleted.map(\.chunkFile).prefix(Self.namedLimit))
    }

    static func path(_ storeDirectory: String) -> String {
        URL(fileURLWithPath: storeDirectory).appendingPathComponent(fileName).path
    }

    public var json: JSONValue {
        func number(_ value: Int64?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        return .object([
            "chunksDeleted": .number(Double(chunksDeleted)), "bytesDeleted": .number(Double(bytesDeleted)),
            "lastDeletionMs": number(lastDeletionMs), "lastDeletionChunks": .number(Double(lastDeletionChunks)),
            "lastDeletionBytes": .number(Double(lastDeletionBytes)), "lastDeletedFiles": .array(lastDeletedFiles.map { .string($0) }),
            "lastPassMs": number(lastPassMs), "lastPassError": lastPassError.map { .string($0) } ?? .null,
        ])
    }
}
