/// Pages of a bucket listing (ListObjectsV2): the S3 client, or a stand-in in tests.
protocol BucketListingSource: Sendable {
    func list(prefix: String, startAfter: String?, continuationToken: String?, maxKeys: Int) async throws -> S3Client.ListPage
}

/// Pages of the multipart uploads open under a prefix (ListMultipartUploads): the S3
/// client, or a stand-in in tests. A page starts after `marker`, the last upload of the page
/// before (S3's key-marker and upload-id-marker).
protocol MultipartUploadListingSource: Sendable {
    func listMultipartUploads(prefix: String, after marker: S3Client.MultipartUpload?, maxUploads: Int) async throws -> S3Client.UploadPage
}

extension S3Client: BucketListingSource, MultipartUploadListingSource {}

/// The most keys one request lists from a bucket, where others may write: a range of the
/// archive (`GET /api/clip`, `/api/chunks`, an upload, `fleet fetch`), the fleet's node
/// records, the holds waiting in the bucket for a node, the multipart uploads left open
/// under the node's prefix, a pass of the archive's age deletion. Each key listed costs a
/// read (a manifest, a record): 5,000 are some 30 s on a LAN bucket and a few MB, where a
/// bucket of 100,000 keys would be ten minutes and its whole listing in memory. Past the
/// limit the listing stops and the request fails naming it.
enum BucketListingLimit {
    static let maximumKeys = 5_000
    /// The most keys (or uploads) asked for in one page: S3's own largest page.
    static let pageKeys = 1_000

    /// Lists `prefix` from `startAfter` a page (1,000 keys) at a time, handing each page's
    /// keys to `page` (which returns false once it has what it needs), so that no more than a
    /// page is held at once. Throws `BucketListingTooLong` rather than ask for a page past
    /// `maximumKeys` keys handed on.
    static func forEachPage(
        of source: some BucketListingSource, prefix: String, startAfter: String? = nil, maximumKeys: Int = maximumKeys,
        _ page: ([String]) async throws -> Bool
    ) async throws {
        try await forEachPage(prefix: prefix, maximumKeys: maximumKeys, page) { (token: String?, maxKeys) in
            let next = try await source.list(prefix: prefix, startAfter: token == nil ? startAfter : nil, continuationToken: token, maxKeys: maxKeys)
            return (next.keys, next.nextContinuationToken)
        }
    }

    /// The multipart uploads open under `prefix`, a page at a time, as `forEachPage` lists keys.
    static func forEachUploadPage(
        of source: some MultipartUploadListingSource, prefix: String, maximumKeys: Int = maximumKeys,
        _ page: ([S3Client.MultipartUpload]) async throws -> Bool
    ) async throws {
        try await forEachPage(prefix: prefix, maximumKeys: maximumKeys, page) { marker, maxKeys in
            let next = try await source.listMultipartUploads(prefix: prefix, after: marker, maxUploads: maxKeys)
            return (next.uploads, next.nextMarker)
        }
    }

    /// The paging both listings share: `fetch` asks for the page after a cursor (nil: the
    /// first) of at most so many items, and returns them with the next page's cursor (nil:
    /// the last page).
    private static func forEachPage<Item, Cursor>(
        prefix: String, maximumKeys: Int, _ page: ([Item]) async throws -> Bool,
        fetch: (Cursor?, Int) async throws -> (items: [Item], next: Cursor?)
    ) async throws {
        var cursor: Cursor?
        var listed = 0
        repeat {
            let next = try await fetch(cursor, min(pageKeys, maximumKeys - listed))
            guard try await page(next.items) else { return }
            listed += next.items.count
            cursor = next.next
            if cursor != nil, listed >= maximumKeys { throw BucketListingTooLong(prefix: prefix, limit: maximumKeys) }
        } while cursor != nil
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
