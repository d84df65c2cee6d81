import AsyncHTTPClient
import Foundation
import Logging

/// One node's archive as a source of chunks: its manifests overlapping a range (through the
/// archive's catalog) and its files, resumable with Range and checked against the manifest.
struct BucketSource: Sendable {
    let catalog: ArchiveCatalog

    init(client: S3Client, prefix: String, logger: Logger) {
        // The catalog's fetch folder is for the node's own read-backs; the fleet writes its own files.
        catalog = ArchiveCatalog(
            client: client, layout: ArchiveLayout(prefix: prefix), fetchDirectory: FileManager.default.temporaryDirectory, logger: logger)
    }

    func manifests(startMs: Int64, endMs: Int64) async throws -> [ArchiveManifest] {
        try await catalog.chunks(overlappingStartMs: startMs, endMs: endMs)
    }

    func open(_ file: String, offset: Int64) async throws -> (body: HTTPClientResponse.Body, resumed: Bool) {
        let key = catalog.layout.key(forFile: file)
        guard let response = try await catalog.client.get(key: key, offset: offset) else {
            throw S3Error(operation: "GET \(key)", status: 404, code: "NoSuchKey", detail: "listed in its manifest but not in the bucket")
        }
        return (response.body, response.status == .partialContent)
    }
}
