import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import Synchronization
import _NIOFileSystem

/// Reads the archive back: which chunks it holds for a time range (from their manifests),
/// and their files, streamed from the bucket to a local file or to a caller.
public final class ArchiveCatalog: Sendable {
    /// Where archived files are fetched to while a request uses them, inside the store
    /// directory (same file system, so the store's free-space floor protects it too).
    static let fetchDirectoryName = ".archive-fetch"
    /// The longest a chunk can be (videoChunkDurationMs): a chunk overlapping a range
    /// started at most this long before the range.
    static let longestChunkMs: Int64 = 3_600_000
    /// Manifests remembered (by key; about 17 hours of 30 s chunks, some 1.5 MB); past this
    /// the memory is cleared and filled again by listing. Ranges the ring holds never come
    /// here, so what is remembered serves the footage evicted lately; more would be memory
    /// a node running for months keeps growing into for little.
    static let rememberedLimit = 2_048
    /// Manifests read from the bucket at once while listing a range.
    static let manifestReadsAtOnce = 8

    let client: S3Client
    let layout: ArchiveLayout
    let fetchDirectory: URL
    /// The node's, where a range listing past `BucketListingLimit` is counted; nil for the command line's.
    private let refusals: RefusalCounters?
    private let logger: Logger
    private let known = Mutex<[String: ArchiveManifest]>([:])

    init(client: S3Client, layout: ArchiveLayout, fetchDirectory: URL, refusals: RefusalCounters? = nil, logger: Logger) {
        self.client = client
        self.layout = layout
        self.fetchDirectory = fetchDirectory
        self.refusals = refusals
        self.logger = logger
    }

    /// Fetched copies left by requests of an earlier run (the node calls this at start).
    func removeLeftoverFetches() {
        try? FileManager.default.removeItem(at: fetchDirectory)
    }

    /// A manifest whose chunk was deleted from the bucket.
    func forget(key: String) {
        _ = known.withLock { $0.removeValue(forKey: key) }
    }

    /// A manifest this node has just written.
    func remember(_ manifest: ArchiveManifest, key: String) {
        known.withLock { known in
            if known.count >= Self.rememberedLimit { known.removeAll() }
            known[key] = manifest
        }
    }

    /// Archived chunks whose frames overlap [startMs, endMs), oldest first. Lists the
    /// manifests whose chunks can overlap and reads those not seen before.
    public func chunks(overlappingStartMs startMs: Int64, endMs: Int64) async throws -> [ArchiveManifest] {
        let firstKey = layout.manifestKey(stamp: ChunkNaming.stamp(forMs: max(0, startMs - Self.longestChunkMs - 1)))
        let lastKey = layout.manifestKey(stamp: ChunkNaming.stamp(forMs: min(endMs, Int64(UploadTimeRange.latestSeconds * 1000))))
        var found: [ArchiveManifest] = []
        // At most `BucketListingLimit.maximumKeys` keys: a bucket others write to may hold any number in a range.
        do {
            try await BucketListingLimit.forEachPage(of: client, prefix: layout.manifestsPrefix, startAfter: firstKey) { page in
                let keys = page.filter { $0 <= lastKey }
                // One round trip each (~45 ms on a LAN radosgw): read side by side, not in turn.
                let manifests = try await BoundedTasks.map(keys, limit: Self.manifestReadsAtOnce) { try await self.manifest(at: $0) }
                found += manifests.compactMap { $0 }.filter { $0.record.overlaps(startMs: startMs, endMs: endMs) }
                return keys.count == page.count
            }
        } catch let tooLong as BucketListingTooLong {
            refusals?.count(.bucketListingLimit)
            throw tooLong
        }
        return found.sorted { $0.firstFrameMs < $1.firstFrameMs }
    }

    /// Archived chunks overlapping [startMs, endMs) that `store` does not hold. The bucket is
    /// asked only for the part of the range the store may have let go of, so a range the
    /// ring holds whole costs no request.
    public func chunks(overlappingStartMs startMs: Int64, endMs: Int64, notHeldBy store: ChunkStore) async throws -> [ArchiveManifest] {
        guard let older = store.rangeNotWhollyHeld(startMs: startMs, endMs: endMs) else { return [] }
        return try await chunks(overlappingStartMs: older.startMs, endMs: older.endMs).filter { !store.contains(stamp: $0.stamp) }
    }

    /// The manifest of the chunk a file name belongs to, when the archive holds it.
    public func manifest(forFile name: String) async throws -> ArchiveManifest? {
        if let remembered = known.withLock({ $0.values.first { $0.chunkFile == name || $0.timestampsFile == name } }) {
            return remembered
        }
        let stamp: String
        switch ChunkNaming.classify(name) {
        case .chunk(let chunkStamp, _): stamp = chunkStamp
        case .timestamps(let chunkStamp): stamp = chunkStamp
        default: return nil
        }
        guard let manifest = try await manifest(at: layout.manifestKey(stamp: stamp)),
            manifest.chunkFile == name || manifest.timestampsFile == name
        else { return nil }
        return manifest
    }

    /// Reads (or remembers) the manifest under `key`; nil when it is gone or not one of ours.
    func manifest(at key: String) async throws -> ArchiveManifest? {
        if let remembered = known.withLock({ $0[key] }) { return remembered }
        guard let response = try await client.get(key: key) else { return nil }
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard let manifest = try? ArchiveManifest.decode(Array(buffer: body)), manifest.isWellFormed,
            key == layout.manifestKey(stamp: manifest.stamp)
        else {
            logger.warning("archive: \(key) is not a manifest the node can read; skipped")
            return nil
        }
        remember(manifest, key: key)
        return manifest
    }

    /// Starts reading one of an archived chunk's files from the bucket.
    public func open(_ fileName: String) async throws -> HTTPClientResponse {
        let key = layout.key(forFile: fileName)
        guard let response = try await client.get(key: key) else {
            throw S3Error(operation: "GET \(key)", status: 404, code: "NoSuchKey", detail: "listed in its manifest but not in the bucket")
        }
        return response
    }

    /// Copies a chunk's two files from the bucket into a new folder under the fetch
    /// directory, checking each against the manifest's size and checksum. The caller
    /// removes the folder when done with it.
    public func fetch(_ manifest: ArchiveManifest) async throws -> FetchedChunk {
        let folder = fetchDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fetched = FetchedChunk(manifest: manifest, folder: folder)
        do {
            try await download(manifest.chunkFile, to: fetched.chunkPath, size: manifest.chunkBytes, sha256: manifest.chunkSHA256)
            try await download(
                manifest.timestampsFile, to: fetched.timestampsPath, size: manifest.timestampsBytes, sha256: manifest.timestampsSHA256)
        } catch {
            fetched.remove()
            throw error
        }
        return fetched
    }

    private func download(_ fileName: String, to path: String, size: Int64, sha256: String) async throws {
        let response = try await open(fileName)
        var hash = SHA256()
        var written: Int64 = 0
        try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(path), options: .newFile(replaceExisting: true)) { handle in
            var writer = handle.bufferedWriter()
            for try await piece in response.body {
                piece.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                written += Int64(piece.readableBytes)
                try await writer.write(contentsOf: piece)
            }
            try await writer.flush()
        }
        let digest = FileDigest.hex(hash.finalize())
        guard written == size, digest == sha256 else {
            throw ArchiveError(description: "\(fileName) read back from the archive is \(written) bytes with SHA-256 \(digest); its manifest says \(size) bytes, \(sha256)")
        }
    }
}

/// A chunk's files copied from the archive for one request; `remove()` when done.
public struct FetchedChunk: Sendable {
    public let manifest: ArchiveManifest
    public let folder: URL

    public var chunkPath: String { folder.appendingPathComponent(manifest.chunkFile).path }
    public var timestampsPath: String { folder.appendingPathComponent(manifest.timestampsFile).path }

    public func remove() { try? FileManager.default.removeItem(at: folder) }
}
