import Foundation

/// The `archive.*` keys: where finished chunks are copied, an S3-compatible bucket.
public struct ArchiveSettings: Sendable, Equatable {
    /// `off`, or the store's endpoint URL (http:// or https://, e.g. http://127.0.0.1:7480).
    public var endpoint: String = "off"
    public var bucket: String = ""
    /// Key prefix of this node's objects; empty: `<clientName>/`.
    public var prefix: String = ""
    public var region: String = "us-east-1"
    /// `endpoint/bucket/key` (radosgw, MinIO) rather than `bucket.endpoint/key` (AWS).
    public var pathStyle: Bool = true
    /// An AWS shared-credentials file; empty: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
    public var credentialsFile: String = ""
    /// Files above this are sent as multipart uploads, in parts of `partSizeMB`; fractions
    /// allowed (a file smaller than a part goes as a one-part upload).
    public var multipartThresholdMB: Double = 64
    public var partSizeMB: Int = 16
    /// `/api/health` is degraded while the oldest chunk not yet archived is older than this.
    public var maxLagSeconds: Int = 600
    /// The node deletes its own objects (its prefix only) whose last frame is older than this
    /// many days, held ones excepted; fractions allowed; 0: the archive keeps everything.
    public var maxAgeDays: Double = 0

    public init() {}

    public var isEnabled: Bool { endpoint != "off" }
    var multipartThresholdBytes: Int64 { Int64(multipartThresholdMB * 1_048_576) }
    var partBytes: Int64 { Int64(partSizeMB) << 20 }

    /// The prefix in use: the configured one ending in `/`, or the node's client name.
    public func resolvedPrefix(clientName: String) -> String {
        let base = prefix.isEmpty ? clientName : prefix
        return base.hasSuffix("/") ? base : base + "/"
    }

    /// A client for the bucket these settings name, with the credentials from the environment
    /// or `credentialsFile`.
    /// - Throws: when the endpoint or bucket is malformed, or there are no credentials.
    public func makeClient() throws -> S3Client {
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ArchiveError(description: "archive.endpoint must be off or an http:// or https:// URL, got \(endpoint)")
        }
        guard Self.isValidBucket(bucket) else {
            throw ArchiveError(
                description: "archive.bucket must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens), got \"\(bucket)\"")
        }
        let credentials = try S3Credentials.load(file: credentialsFile)
        return S3Client(endpoint: url, bucket: bucket, region: region, pathStyle: pathStyle, credentials: credentials)
    }

    /// S3's rules for bucket names: 3–63 lower-case letters, digits, dots and hyphens.
    static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.count)
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
            && !name.hasPrefix(".") && !name.hasPrefix("-")
    }

    /// A prefix that is a relative key path: no leading slash, no `..` or empty segments, printable.
    static func isValidPrefix(_ prefix: String) -> Bool {
        guard prefix.count <= 512, !prefix.hasPrefix("/") else { return false }
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: false).dropLast(prefix.hasSuffix("/") ? 1 : 0)
        return segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
            && prefix.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f }
    }
}
