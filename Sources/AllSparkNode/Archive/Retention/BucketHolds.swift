import Foundation

/// A node's holds record in the bucket (`ArchiveLayout.holdsKey`): holds placed on its
/// archived footage by `fleet hold` (for a node that was down, so its archive keeps the span
/// until the node is back and holds it itself). Written whole, read whole; a record that
/// does not parse stops the archive's age deletion, never reads as "no holds".
public struct BucketHolds: Sendable {
    let client: S3Client
    let layout: ArchiveLayout

    public init(client: S3Client, layout: ArchiveLayout) {
        self.client = client
        self.layout = layout
    }

    public func read() async throws -> [Hold] {
        guard let response = try await client.get(key: layout.holdsKey) else { return [] }
        let body = try await response.body.collect(upTo: 4 << 20)
        do {
            return try HoldsFile.decode(Data(buffer: body))
        } catch {
            throw HoldError.unreadableFile(path: "\(client.bucket)/\(layout.holdsKey)", reason: "\(error)")
        }
    }

    /// Adds `hold` unless a hold with its id is there already; lapsed holds are dropped.
    public func add(_ hold: Hold, nowMs: Int64 = WallClock.nowMs()) async throws {
        let holds = try await read().active(atMs: nowMs)
        guard !holds.contains(where: { $0.id == hold.id }) else { return }
        let bytes = Array(try HoldsFile.encode(holds + [hold]))
        try await client.put(key: layout.holdsKey, bytes: bytes, contentType: "application/json", sha256: FileDigest.sha256Hex(of: bytes))
    }
}
