import Foundation
import Logging
import ServiceLifecycle

/// Deletes this node's archived chunks (its own prefix, nothing else in the bucket) whose
/// last frame is older than `archive.maxAgeDays`, except those a hold keeps: the store's
/// holds and the holds waiting in the bucket for this node (`BucketHolds`). Manifests go first,
/// so a chunk leaves the archive's listing before its files go.
struct ArchiveAgeRetention: Service {
    let archive: ChunkArchive
    let store: ChunkStore
    let maxAgeMs: Int64
    let logger: Logger
    /// A pass lists the manifests up to the cutoff (one request per 1000) and reads those it
    /// has not read before: cheap at this pace, and a chunk outlives the limit by at most this
    /// (or a pass per `BucketListingLimit.maximumKeys` manifests past it, when there are more).
    var interval: Duration = .seconds(10)

    init(archive: ChunkArchive, store: ChunkStore, maxAgeDays: Double, logger: Logger) {
        self.archive = archive
        self.store = store
        maxAgeMs = Int64((maxAgeDays * 86_400_000).rounded())
        self.logger = logger
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var resumeAfter: String?
            while !Task.isCancelled {
                let nowMs = WallClock.nowMs()
                do {
                    let pass = try await deleteExpired(nowMs: nowMs, after: resumeAfter)
                    let deleted = pass.deleted
                    resumeAfter = pass.resumeAfter
                    archive.recordAgeDeletions { $0.record(deleted: deleted, atMs: nowMs) }
                    if !deleted.isEmpty {
                        logger.notice("archive: deleted \(deleted.count) chunks older than archive.maxAgeDays \(Double(maxAgeMs) / 86_400_000) (\(deleted.first!.chunkFile) to \(deleted.last!.chunkFile))")
                    }
                } catch {
                    logger.error("archive: age deletion failed, nothing more deleted this pass: \(error)")
                    archive.recordAgeDeletions {
                        $0.lastPassMs = nowMs
                        $0.lastPassError = "\(error)"
                    }
                }
                guard (try? await Task.sleep(for: interval)) != nil else { return }
            }
        }
    }

    /// One pass: the manifests up to the cutoff after `resumeAfter`, at most
    /// `BucketListingLimit.maximumKeys` of them, read, and deleted with their files unless held.
    /// Returns those deleted, and the key the next pass resumes after: the last one looked at
    /// when the limit stopped the pass, nil when it reached the cutoff (the next starts from the oldest).
    func deleteExpired(nowMs: Int64, after resumeAfter: String? = nil) async throws -> (deleted: [ArchiveManifest], resumeAfter: String?) {
        let cutoffMs = nowMs - maxAgeMs
        let holds = try await BucketHolds(client: archive.client, layout: archive.layout).read().active(atMs: nowMs) + store.holds(nowMs: nowMs)
        let layout = archive.layout
        let lastKey = layout.manifestKey(stamp: ChunkNaming.stamp(forMs: cutoffMs))
        var deleted: [ArchiveManifest] = []
        var lookedAt: String?
        do {
            try await BucketListingLimit.forEachPage(of: archive.client, prefix: layout.manifestsPrefix, startAfter: resumeAfter) { page in
                let keys = page.filter { $0 <= lastKey }
                for key in keys {
                    if let manifest = try await archive.catalog.manifest(at: key), manifest.lastFrameMs < cutoffMs,
                        !holds.contains(where: { $0.covers(manifest.record) })
                    {
                        try await archive.client.delete(key: key)
                        archive.catalog.forget(key: key)
                        try await archive.client.delete(key: layout.key(forFile: manifest.chunkFile))
                        try await archive.client.delete(key: layout.key(forFile: manifest.timestampsFile))
                        deleted.append(manifest)
                    }
                    lookedAt = key
                }
                return keys.count == page.count
            }
        } catch is BucketListingTooLong {
            return (deleted, lookedAt)
        }
        return (deleted, nil)
    }
}
