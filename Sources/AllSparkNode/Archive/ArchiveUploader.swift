import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import _NIOFileSystem

/// Copies finished chunks to the archive, oldest first: each chunk's file and timestamps
/// file streamed from disk under their own names, then its manifest. While the store
/// cannot be reached it waits with jittered exponential backoff and tries again; the ring
/// never waits for it (a chunk evicted first is counted in the backlog's account).
public struct ArchiveUploader: Service {
    let archive: ChunkArchive
    let store: ChunkStore
    let logger: Logger

    public init(archive: ChunkArchive, store: ChunkStore, logger: Logger) {
        self.archive = archive
        self.store = store
        self.logger = logger
    }

    public func run() async throws {
        let backlog = archive.backlog
        store.onEvicted { record in
            if backlog.evicted(record) { logger.warning("archive: \(record.fileName) was evicted from the ring before it could be archived") }
        }
        await resumeAfterRestart()
        // At shutdown what waits (the recorder's last chunk included: the uploader stops after
        // the recorder) is sent for up to `shutdownGrace`, while the bucket takes it: a bucket
        // that is failing is not waited for (the next start sends the backlog). Then the chunk
        // under way is cut off (and completed at the next start): the bucket holds whole chunks only.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await uploadUntilClosed() }
            try? await gracefulShutdown()
            group.addTask { try? await Task.sleep(for: Self.shutdownGrace) }
            group.addTask {
                while !backlog.isEmpty, !backlog.isRetrying, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
            }
            await group.next()
            backlog.close()
            group.cancelAll()
        }
        let left = archive.status().backlogChunks
        if left > 0 {
            let why = backlog.isRetrying ? "the bucket is failing" : "the shutdown grace of \(Self.shutdownGrace) is over"
            logger.notice("archive: stopping with \(left) chunks not yet archived (\(why)); the next start sends them")
        }
        await archive.client.shutdown()
    }

    static let shutdownGrace: Duration = .seconds(10)

    /// Queues every stored chunk the journal does not list as archived, to be checked
    /// against the bucket before anything is sent, and compacts the journal.
    private func resumeAfterRestart() async {
        archive.catalog.removeLeftoverFetches()
        let journal = archive.journal
        let archived = journal.archivedStamps()
        let stored = store.allChunks
        let waiting = stored.filter { !archived.contains($0.stamp) }
        for record in waiting { archive.backlog.add(record, checkBucketFirst: true) }
        compactJournal()
        if !waiting.isEmpty { logger.info("archive: \(waiting.count) stored chunks are not yet known to be archived") }
    }

    /// Keeps only the lines of chunks still stored (the rest can no longer be sent twice).
    private func compactJournal() {
        do {
            try archive.journal.compact(keeping: Set(store.allChunks.map(\.stamp)))
        } catch {
            logger.warning("archive: could not compact the journal: \(error)")
        }
    }

    /// Aborts every multipart upload open under the node's prefix: those a crash or a failed
    /// abort left behind (invisible, but holding space until aborted). The uploader sends
    /// one chunk at a time, so none of its own is under way when this runs.
    private func abortOpenUploads() async throws {
        do {
            try await BucketListingLimit.forEachUploadPage(of: archive.client, prefix: archive.layout.prefix) { uploads in
                for upload in uploads {
                    try await archive.client.abortMultipartUpload(key: upload.key, uploadId: upload.uploadId)
                    logger.info("archive: aborted an unfinished multipart upload of \(upload.key)")
                }
                return true
            }
        } catch let tooLong as BucketListingTooLong {
            // Those listed are aborted; the rest wait for the next clean-up (after a failure or
            // at the next start) rather than hold up the footage waiting now.
            logger.warning("archive: more than \(tooLong.limit) multipart uploads open under \(tooLong.prefix) (the bucket listing limit): \(tooLong.limit) aborted, the rest are left for the next clean-up")
        }
    }

    private func uploadUntilClosed() async {
        var signals = archive.backlog.signals.makeAsyncIterator()
        var backoff = ReconnectBackoff()
        var failing = false
        var cleanedUp = false
        while !Task.isCancelled {
            guard let item = archive.backlog.first else {
                guard !archive.backlog.isClosed, await signals.next() != nil else { return }
                continue
            }
            archive.backlog.uploading()
            let started = WallClock.monotonicMs()
            do {
                // At start and after every failure, before anything new is sent.
                if failing || !cleanedUp {
                    try await abortOpenUploads()
                    cleanedUp = true
                }
                guard let sent = try await archiveChunk(item) else { continue }
                let seconds = Double(WallClock.monotonicMs() - started) / 1000
                archive.backlog.archived(item.record, sentBytes: sent, seconds: seconds, nowMonotonicMs: WallClock.monotonicMs())
                if archive.journal.isDueForCompaction { compactJournal() }
                if failing {
                    logger.notice("archive: \(archive.client.bucketDescription) answers again; \(archive.status().backlogChunks) chunks in the backlog")
                    failing = false
                }
                backoff = ReconnectBackoff()
            } catch is CancellationError {
                return
            } catch {
                guard !Task.isCancelled else { return }
                archive.backlog.failed(error, nowMs: WallClock.nowMs())
                let wait = backoff.nextDelay()
                let message = "archive: \(item.record.fileName) not archived: \(error); trying again in \(wait.secondsText)"
                // The first failure of a run is a warning; the retries that follow are routine.
                if failing { logger.debug("\(message)") } else { logger.warning("\(message)") }
                failing = true
                try? await Task.sleep(for: wait)
            }
        }
    }

    /// Archives one chunk; returns the bytes sent (0 when the bucket held it all already),
    /// nil when the ring evicted it first.
    private func archiveChunk(_ item: ArchiveBacklog.Item) async throws -> Int64? {
        let record = item.record
        let chunkPath = store.directory.appendingPathComponent(record.fileName).path
        let timestampsPath = store.directory.appendingPathComponent(record.timestampsFileName).path
        do {
            // Both files are opened first: an eviction from then on cannot take their bytes away.
            return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(chunkPath)) { chunk in
                try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(timestampsPath)) { timestamps in
                    try await archive(record, chunk: chunk, timestamps: timestamps, checkBucketFirst: item.checkBucketFirst)
                }
            }
        } catch let error as FileSystemError where error.code == .notFound {
            if archive.backlog.evicted(record) {
                logger.warning("archive: \(record.fileName) was evicted from the ring before it could be archived")
            }
            return nil
        }
    }

    private func archive(_ record: ChunkRecord, chunk: ReadFileHandle, timestamps: ReadFileHandle, checkBucketFirst: Bool) async throws -> Int64 {
        let settings = archive.settings
        let chunkSize = try await chunk.info().size
        let partBytes = chunkSize > settings.multipartThresholdBytes ? settings.partBytes : nil
        let chunkDigest = try await FileDigest.of(chunk, size: chunkSize, partBytes: partBytes)
        let timestampsDigest = try await FileDigest.of(timestamps, size: try await timestamps.info().size)
        let manifest = ArchiveManifest(
            node: archive.nodeName, record: record, chunk: chunkDigest, timestamps: timestampsDigest, archivedAtMs: WallClock.nowMs())
        let manifestBytes = try manifest.encoded()
        let manifestDigest = FileDigest.sha256Hex(of: manifestBytes)
        let client = archive.client
        let layout = archive.layout
        var sent: Int64 = 0
        let files = [
            (key: layout.key(forFile: record.fileName), handle: chunk, digest: chunkDigest, type: record.format.mimeType),
            (key: layout.key(forFile: record.timestampsFileName), handle: timestamps, digest: timestampsDigest, type: "text/plain"),
        ]
        for file in files {
            if checkBucketFirst, let found = try await client.head(key: file.key), found.size == file.digest.size, found.sha256 == file.digest.sha256 {
                continue
            }
            try await upload(file.handle, key: file.key, digest: file.digest, contentType: file.type)
            sent += file.digest.size
        }
        // The manifest goes last: a chunk is listed only once both its files are whole in the bucket.
        let manifestKey = layout.manifestKey(stamp: record.stamp)
        let manifestMissing = sent > 0 || !checkBucketFirst ? true : try await client.head(key: manifestKey) == nil
        if manifestMissing {
            try await client.put(key: manifestKey, bytes: manifestBytes, contentType: "application/json", sha256: manifestDigest)
            sent += Int64(manifestBytes.count)
        }
        try archive.journal.recordArchived(stamp: record.stamp)
        archive.catalog.remember(manifest, key: manifestKey)
        logger.debug("archive: \(record.fileName) \(sent > 0 ? "archived" : "was already in the bucket")")
        return sent
    }

    private func upload(_ handle: ReadFileHandle, key: String, digest: FileDigest, contentType: String) async throws {
        let client = archive.client
        guard !digest.partSHA256.isEmpty else {
            let body = HTTPClientRequest.Body.stream(handle.readChunks(in: 0..<digest.size, chunkLength: FileDigest.readBytes), length: .known(digest.size))
            try await client.put(key: key, body: body, length: digest.size, contentType: contentType, sha256: digest.sha256)
            return
        }
        let partBytes = archive.settings.partBytes
        let uploadId = try await client.createMultipartUpload(key: key, contentType: contentType, sha256: digest.sha256)
        do {
            var etags: [String] = []
            for (index, partDigest) in digest.partSHA256.enumerated() {
                let start = Int64(index) * partBytes
                let end = min(start + partBytes, digest.size)
                let body = HTTPClientRequest.Body.stream(handle.readChunks(in: start..<end, chunkLength: FileDigest.readBytes), length: .known(end - start))
                etags.append(try await client.uploadPart(key: key, uploadId: uploadId, number: index + 1, body: body, length: end - start, sha256: partDigest))
            }
            try await client.completeMultipartUpload(key: key, uploadId: uploadId, etags: etags)
        } catch {
            // Detached so that a shutdown's cancellation, which may be what ended the upload,
            // does not cancel the abort too. When the abort fails, the listing before the next
            // upload (or at the next start) finds the upload.
            await Task.detached { try? await client.abortMultipartUpload(key: key, uploadId: uploadId) }.value
            throw error
        }
    }
}

extension Duration {
    /// `2.5 s`, for log lines.
    var secondsText: String {
        let (seconds, attoseconds) = components
        return String(format: "%.1f s", Double(seconds) + Double(attoseconds) / 1e18)
    }
}
