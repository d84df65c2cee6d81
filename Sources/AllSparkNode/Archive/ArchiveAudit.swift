import Foundation
import _NIOFileSystem

/// `allspark-node archive verify`: compares the ring and the bucket chunk by chunk. A
/// chunk in the ring is checked object by object (size, and the SHA-256 of the local file
/// against the one the object carries) and its media signatures are verified; a chunk only
/// the archive holds is checked against its manifest.
public enum ArchiveAudit {
    public enum Finding: Sendable, Equatable, Encodable {
        case archived
        /// In the ring, not (wholly) in the bucket yet: the objects missing.
        case missing([String])
        /// Objects whose size or checksum is not the local file's or the manifest's.
        case differs([String])

        public var isProblem: Bool { self != .archived }
    }

    public struct Entry: Sendable, Encodable {
        public let file: String
        public let startMs: Int64
        /// `ring` (the node still has it) or `archive` (only the bucket does).
        public let location: String
        public let finding: Finding
        /// The local file's media signatures (ring chunks only: the node reads no object back for them).
        public var signature: SignatureCheck? = nil

        public var isProblem: Bool { finding.isProblem || signature?.status == .invalid }
    }

    public static func verify(archive: ChunkArchive, ring: [ChunkRecord], storeDirectory: URL, startMs: Int64, endMs: Int64) async throws -> [Entry] {
        var entries: [Entry] = []
        for record in ring where record.overlaps(startMs: startMs, endMs: endMs) {
            entries.append(
                Entry(
                    file: record.fileName, startMs: record.startMs, location: "ring",
                    finding: try await check(record, in: archive, storeDirectory: storeDirectory),
                    signature: .of(storeDirectory.appendingPathComponent(record.fileName).path)))
        }
        let held = Set(ring.map(\.stamp))
        for manifest in try await archive.catalog.chunks(overlappingStartMs: startMs, endMs: endMs) where !held.contains(manifest.stamp) {
            entries.append(Entry(file: manifest.chunkFile, startMs: manifest.firstFrameMs, location: "archive", finding: try await check(manifest, in: archive)))
        }
        return entries.sorted { $0.startMs < $1.startMs }
    }

    /// A ring chunk: its files against the local ones, and its manifest present.
    private static func check(_ record: ChunkRecord, in archive: ChunkArchive, storeDirectory: URL) async throws -> Finding {
        var files: [(name: String, digest: FileDigest)] = []
        for name in [record.fileName, record.timestampsFileName] {
            let path = storeDirectory.appendingPathComponent(name).path
            files.append((name, try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                try await FileDigest.of(handle, size: try await handle.info().size)
            }))
        }
        return try await compare(
            files.map { ($0.name, $0.digest.size, $0.digest.sha256) }, in: archive,
            manifestKey: archive.layout.manifestKey(stamp: record.stamp))
    }

    /// An archive-only chunk: its files against its manifest.
    private static func check(_ manifest: ArchiveManifest, in archive: ChunkArchive) async throws -> Finding {
        try await compare(
            [(manifest.chunkFile, manifest.chunkBytes, manifest.chunkSHA256), (manifest.timestampsFile, manifest.timestampsBytes, manifest.timestampsSHA256)],
            in: archive, manifestKey: nil)
    }

    /// Each file's object against the size and SHA-256 it should have; the manifest, when
    /// given, only for being there.
    private static func compare(_ files: [(name: String, size: Int64, sha256: String)], in archive: ChunkArchive, manifestKey: String?) async throws -> Finding {
        var missing: [String] = []
        var differing: [String] = []
        for file in files {
            let key = archive.layout.key(forFile: file.name)
            guard let object = try await archive.client.head(key: key) else {
                missing.append(key)
                continue
            }
            if object.size != file.size || object.sha256 != file.sha256 { differing.append(key) }
        }
        if let manifestKey, try await archive.client.head(key: manifestKey) == nil { missing.append(manifestKey) }
        if !differing.isEmpty { return .differs(differing) }
        return missing.isEmpty ? .archived : .missing(missing)
    }

    /// What the journal and the bucket say, for `archive status`.
    public struct Summary: Sendable, Encodable {
        public let bucket: String
        public let prefix: String
        public let ringChunks: Int
        public let ringChunksArchived: Int
        public let ringChunksWaiting: Int
        public let oldestWaitingMs: Int64?
        public let archivedChunks: Int
        public let oldestArchivedMs: Int64?
        public let newestArchivedMs: Int64?
        public let maxAgeDays: Double
        /// What `archive.maxAgeDays` deleted, and when (the store's account of it).
        public let deletedByAge: ArchiveDeletionLog
    }

    public static func summary(archive: ChunkArchive, ring: [ChunkRecord]) async throws -> Summary {
        let journaled = archive.journal.archivedStamps()
        let waiting = ring.filter { !journaled.contains($0.stamp) }
        // Counted a page at a time, only the first and last key kept: the archive of a year
        // is millions of keys, and the count is what this is asked for.
        var count = 0
        var first: String?
        var last: String?
        var token: String?
        repeat {
            let page = try await archive.client.list(prefix: archive.layout.manifestsPrefix, continuationToken: token)
            count += page.keys.count
            first = first ?? page.keys.first
            last = page.keys.last ?? last
            token = page.nextContinuationToken
        } while token != nil
        var oldest: ArchiveManifest?
        var newest: ArchiveManifest?
        if let first, let last {
            oldest = try await archive.catalog.manifest(at: first)
            newest = try await archive.catalog.manifest(at: last)
        }
        return Summary(
            bucket: archive.client.bucketDescription, prefix: archive.layout.prefix, ringChunks: ring.count,
            ringChunksArchived: ring.count - waiting.count, ringChunksWaiting: waiting.count, oldestWaitingMs: waiting.first?.startMs,
            archivedChunks: count, oldestArchivedMs: oldest?.firstFrameMs, newestArchivedMs: newest?.lastFrameMs,
            maxAgeDays: archive.settings.maxAgeDays, deletedByAge: archive.ageDeletionLog)
    }
}
