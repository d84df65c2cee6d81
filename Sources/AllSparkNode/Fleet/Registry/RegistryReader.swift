import Foundation

/// Reads the fleet's records from the bucket: one listing of `allspark-fleet/` (a page per
/// 1,000 nodes, `BucketListingLimit` at most), then each record, a few at a time.
public struct RegistryReader: Sendable {
    static let parallelReads = 8

    let client: S3Client

    public init(client: S3Client) {
        self.client = client
    }

    /// Every record, by node id. A record that is not one the node writes is skipped.
    public func records() async throws -> [NodeRecord] {
        var keys: [String] = []
        // At most `BucketListingLimit.maximumKeys` records: the bucket is shared, its keys any number.
        try await BucketListingLimit.forEachPage(of: client, prefix: NodeRecord.fleetPrefix) { page in
            keys += page.filter { $0.hasSuffix(".json") }
            return true
        }
        let found = try await BoundedTasks.map(keys, limit: Self.parallelReads) { try await read($0) }
        return found.compactMap { $0 }.sorted { $0.name < $1.name }
    }

    private func read(_ key: String) async throws -> NodeRecord? {
        guard let bytes = try await client.get(key: key)?.body.collect(upTo: 1 << 20) else { return nil }
        guard let record = try? NodeRecord.decode(Array(buffer: bytes)), key == NodeRecord.fleetKey(id: record.id) else { return nil }
        return record
    }
}
