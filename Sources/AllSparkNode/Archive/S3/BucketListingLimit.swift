/// Pages of a bucket listing (ListObjectsV2): the S3 client, or a stand-in in tests.
protocol BucketListingSource: Sendable {
    func list(prefix: String, startAfter: String?, continuationToken: String?, maxKeys: Int) async throws -> S3Client.ListPage
}

extension S3Client: BucketListingSource {}

/// The most keys one request lists from a bucket, where others may write: a range of the
/// archive (`GET /api/clip`, `/api/chunks`, an upload, `fleet fetch`), the fleet's node
/// records, the holds waiting in the bucket for a node. Each key listed costs a read (a manifest, a record): 5,000 are some 30 s on a LAN
/// bucket and a few MB, where a bucket of 100,000 keys would be ten minutes and its whole
/// listing in memory. Past the limit the listing stops and the request fails naming it.
enum BucketListingLimit {
    static let maximumKeys = 5_000

    /// Lists `prefix` from `startAfter` a page (1,000 keys) at a time, handing each page's
    /// keys to `page` (which returns false once it has what it needs), so that no more than a
    /// page is held at once. Throws `BucketListingTooLong` rather than ask for a page past
    /// `maximumKeys` keys handed on.
    static func forEachPage(
        of source: some BucketListingSource, prefix: String, startAfter: String? = nil, maximumKeys: Int = maximumKeys,
        _ page: ([String]) async throws -> Bool
    ) async throws {
        var token: String?
        var listed = 0
        repeat {
            let next = try await source.list(
                prefix: prefix, startAfter: token == nil ? startAfter : nil, continuationToken: token, maxKeys: min(1000, maximumKeys - listed))
            guard try await page(next.keys) else { return }
            listed += next.keys.count
            token = next.nextContinuationToken
            if token != nil, listed >= maximumKeys { throw BucketListingTooLong(prefix: prefix, limit: maximumKeys) }
        } while token != nil
    }
}

/// A listing that would pass `BucketListingLimit`.
struct BucketListingTooLong: Error, CustomStringConvertible, Equatable {
    let prefix: String
    let limit: Int

    var description: String {
        "more than \(limit) keys under \(prefix) for one request (the bucket listing limit); ask for a shorter range"
    }
}
