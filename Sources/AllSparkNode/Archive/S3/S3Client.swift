import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A small S3 client: the object calls the archive needs, signed with SigV4 and sent with
/// async-http-client. Bodies are streamed: uploads from file handles, downloads to the
/// caller as they arrive, so memory does not grow with object size.
public final class S3Client: Sendable {
    public let endpoint: URL
    public let bucket: String
    let pathStyle: Bool
    let signer: S3RequestSigner
    private let http: HTTPClient

    /// Time allowed for a request beyond what its body needs at the slowest rate accepted.
    static let baseTimeout: TimeAmount = .seconds(30)
    static let slowestBytesPerSecond: Int64 = 256 * 1024

    public init(endpoint: URL, bucket: String, region: String, pathStyle: Bool, credentials: S3Credentials) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.pathStyle = pathStyle
        signer = S3RequestSigner(credentials: credentials, region: region)
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(60))
        configuration.decompression = .disabled
        // The node sends one chunk at a time, but a fleet fetch reads several offline nodes'
        // chunks from this one client at once (8 per node): 8 connections left them queued.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 32
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Ends the client's connections; the owner calls it once, when nothing uses the client any more.
    public func shutdown() async {
        try? await http.shutdown()
    }

    /// The bucket as a URL, for messages.
    public var bucketDescription: String { "s3 bucket \(bucket) at \(endpoint.absoluteString)" }

    // MARK: Objects

    public struct ObjectInfo: Sendable, Equatable {
        public let size: Int64
        /// `x-amz-meta-sha256`, which the archive sets on every object it writes.
        public let sha256: String?
    }

    /// Size and checksum of an object, nil when there is none.
    public func head(key: String) async throws -> ObjectInfo? {
        let response: HTTPClientResponse
        do {
            response = try await send("HEAD", key: key, operation: "HEAD \(key)")
        } catch let error as S3Error where error.isMissingObject {
            return nil
        }
        let size = response.headers.first(name: "content-length").flatMap { Int64($0) } ?? 0
        return ObjectInfo(size: size, sha256: response.headers.first(name: "x-amz-meta-sha256"))
    }

    /// Puts a whole object from memory (manifests).
    public func put(key: String, bytes: [UInt8], contentType: String, sha256: String) async throws {
        try await put(key: key, body: .bytes(ByteBuffer(bytes: bytes)), length: Int64(bytes.count), contentType: contentType, sha256: sha256)
    }

    /// Puts a whole object whose bytes `body` streams; `sha256` is of those bytes, so the
    /// store rejects a body that differs from what was hashed.
    public func put(key: String, body: HTTPClientRequest.Body, length: Int64, contentType: String, sha256: String) async throws {
        _ = try await send(
            "PUT", key: key, operation: "PUT \(key)", headers: Self.objectHeaders(contentType: contentType, sha256: sha256),
            body: (body, length), payloadSHA256: sha256)
    }

    /// Starts reading an object (from byte `offset` on: a 206 answer), nil when there is
    /// none; the caller consumes `response.body`.
    public func get(key: String, offset: Int64 = 0) async throws -> HTTPClientResponse? {
        do {
            return try await send("GET", key: key, operation: "GET \(key)", headers: offset > 0 ? [("range", "bytes=\(offset)-")] : [])
        } catch let error as S3Error where error.isMissingObject {
            return nil
        }
    }

    /// Deletes an object; one that is gone already is not an error.
    public func delete(key: String) async throws {
        _ = try await send("DELETE", key: key, operation: "DELETE \(key)")
    }

    // MARK: Listing

    public struct ListPage: Sendable {
        public let keys: [String]
        public let nextContinuationToken: String?
    }

    /// One page of ListObjectsV2 under `prefix`, keys after `startAfter`, in key order.
    public func list(prefix: String, startAfter: String? = nil, continuationToken: String? = nil, maxKeys: Int = 1000) async throws -> ListPage {
        var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(maxKeys))]
        if let startAfter { query.append(("start-after", startAfter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let response = try await send("GET", key: "", query: query, operation: "list \(prefix)")
        let xml = try await Self.text(of: response)
        let truncated = S3XML.firstValue(of: "IsTruncated", in: xml) == "true"
        return ListPage(
            keys: S3XML.values(of: "Key", in: xml),
            nextContinuationToken: truncated ? S3XML.firstValue(of: "NextContinuationToken", in: xml) : nil)
    }

    // MARK: Multipart upload

    public func createMultipartUpload(key: String, contentType: String, sha256: String) async throws -> String {
        let response = try await send(
            "POST", key: key, query: [("uploads", "")], operation: "starting a multipart upload of \(key)",
            headers: Self.objectHeaders(contentType: contentType, sha256: sha256))
        guard let uploadId = S3XML.firstValue(of: "UploadId", in: try await Self.text(of: response)) else {
            throw S3Error(operation: "starting a multipart upload of \(key)", status: 200, code: nil, detail: "no UploadId in the answer")
        }
        return uploadId
    }

    /// Uploads one part; returns its ETag for the completion.
    public func uploadPart(key: String, uploadId: String, number: Int, body: HTTPClientRequest.Body, length: Int64, sha256: String) async throws -> String {
        let operation = "uploading part \(number) of \(key)"
        let response = try await send(
            "PUT", key: key, query: [("partNumber", String(number)), ("uploadId", uploadId)], operation: operation,
            body: (body, length), payloadSHA256: sha256)
        guard let etag = response.headers.first(name: "etag") else {
            throw S3Error(operation: operation, status: Int(response.status.code), code: nil, detail: "no ETag in the answer")
        }
        return etag
    }

    public func completeMultipartUpload(key: String, uploadId: String, etags: [String]) async throws {
        let parts = etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(S3XML.escape($0.element))</ETag></Part>" }
        let document = Array("<CompleteMultipartUpload>\(parts.joined())</CompleteMultipartUpload>".utf8)
        let operation = "completing the multipart upload of \(key)"
        let response = try await send(
            "POST", key: key, query: [("uploadId", uploadId)], operation: operation,
            body: (.bytes(ByteBuffer(bytes: document)), Int64(document.count)), payloadSHA256: FileDigest.sha256Hex(of: document))
        // S3 may answer 200 and put the failure in the body.
        let xml = try await Self.text(of: response)
        if xml.contains("<Error>") { throw S3Error.answered(operation, status: 200, body: xml) }
    }

    /// A multipart upload started and neither completed nor aborted.
    public struct MultipartUpload: Sendable, Equatable {
        public let key: String
        public let uploadId: String
    }

    public struct UploadPage: Sendable {
        public let uploads: [MultipartUpload]
        /// Where the next page starts (S3's NextKeyMarker and NextUploadIdMarker); nil on the last page.
        public let nextMarker: MultipartUpload?
    }

    /// One page of the multipart uploads open under `prefix`, those after `marker` (the last of
    /// the page before), at most `maxUploads`; `BucketListingLimit.forEachUploadPage` pages them.
    public func listMultipartUploads(prefix: String, after marker: MultipartUpload? = nil, maxUploads: Int = 1000) async throws -> UploadPage {
        var query = [("uploads", ""), ("prefix", prefix), ("max-uploads", String(maxUploads))]
        if let marker { query += [("key-marker", marker.key), ("upload-id-marker", marker.uploadId)] }
        let response = try await send("GET", key: "", query: query, operation: "listing multipart uploads under \(prefix)")
        let xml = try await Self.text(of: response)
        // Each <Upload> holds one <Key> and one <UploadId>, in order.
        let uploads = zip(S3XML.values(of: "Key", in: xml), S3XML.values(of: "UploadId", in: xml)).map { MultipartUpload(key: $0, uploadId: $1) }
        guard S3XML.firstValue(of: "IsTruncated", in: xml) == "true",
            let key = S3XML.firstValue(of: "NextKeyMarker", in: xml),
            let uploadId = S3XML.firstValue(of: "NextUploadIdMarker", in: xml)
        else { return UploadPage(uploads: uploads, nextMarker: nil) }
        return UploadPage(uploads: uploads, nextMarker: MultipartUpload(key: key, uploadId: uploadId))
    }

    public func abortMultipartUpload(key: String, uploadId: String) async throws {
        do {
            _ = try await send("DELETE", key: key, query: [("uploadId", uploadId)], operation: "aborting the multipart upload of \(key)")
        } catch let error as S3Error where error.isMissingObject {
            // Already completed or aborted.
        }
    }

    // MARK: Requests

    private static func objectHeaders(contentType: String, sha256: String) -> [(String, String)] {
        [("content-type", contentType), ("x-amz-meta-sha256", sha256)]
    }

    /// Where an object lives: path-style (`endpoint/bucket/key`) or virtual-hosted (`bucket.host/key`).
    private func location(of key: String) -> (host: String, path: String) {
        var host = endpoint.host ?? "localhost"
        if let port = endpoint.port { host += ":\(port)" }
        let base = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        if pathStyle {
            return (host, S3RequestSigner.encodePath("\(base)/\(bucket)/\(key)"))
        }
        return ("\(bucket).\(host)", S3RequestSigner.encodePath("\(base)/\(key)"))
    }

    private func send(
        _ method: String, key: String, query: [(String, String)] = [], operation: String, headers extra: [(String, String)] = [],
        body: (HTTPClientRequest.Body, Int64)? = nil, payloadSHA256: String = S3RequestSigner.emptyPayloadSHA256
    ) async throws -> HTTPClientResponse {
        let (host, path) = location(of: key)
        let signed = signer.signedHeaders(
            method: method, path: path, query: query, headers: [("host", host)] + extra, payloadSHA256: payloadSHA256, date: Date())
        let queryText = query.map { $0.1.isEmpty && $0.0 == "uploads" ? "uploads" : "\(S3RequestSigner.encode($0.0))=\(S3RequestSigner.encode($0.1))" }
        var request = HTTPClientRequest(url: "\(endpoint.scheme ?? "http")://\(host)\(path)\(queryText.isEmpty ? "" : "?" + queryText.joined(separator: "&"))")
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "host", value: host)
        for (name, value) in extra + signed { request.headers.add(name: name, value: value) }
        // async-http-client sets content-length from the body's declared length.
        request.body = body?.0
        let timeout = Self.baseTimeout + .seconds((body?.1 ?? 0) / Self.slowestBytesPerSecond)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout)
        } catch {
            throw S3Error.unreachable(operation, error)
        }
        guard !(200..<300).contains(response.status.code) else { return response }
        // A HEAD answer has no body to name the error: its status says what it can.
        if method == "HEAD" && response.status == .notFound {
            throw S3Error(operation: operation, status: 404, code: "NoSuchKey", detail: "no such object")
        }
        if method == "HEAD" && response.status == .forbidden {
            throw S3Error(operation: operation, status: 403, code: "AccessDenied", detail: "check the credentials and the bucket's permissions")
        }
        throw S3Error.answered(operation, status: Int(response.status.code), body: (try? await Self.text(of: response)) ?? "")
    }

    /// An answer's body as text (S3's XML answers are small; larger is cut off).
    static func text(of response: HTTPClientResponse) async throws -> String {
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return String(buffer: buffer)
    }
}
