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
    /// has not read before: cheap at this pace, and a chunk outlives the limit by at most this.
    var interval: Duration = .seconds(10)

    init(archive: ChunkArchive, store: ChunkStore, maxAgeDays: Double, logger: Logger) {
        self.archive = archive
        self.store = store
        maxAgeMs = Int64((maxAgeDays * 86_400_000).rounded())
        self.logger = logger
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let nowMs = WallClock.nowMs()
                do {
                    let deleted = try await deleteExpired(nowMs: nowMs)
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

    /// One pass: the manifests up to the cutoff, read, and deleted with their files unless held.
    func deleteExpired(nowMs: Int64) async throws -> [ArchiveManifest] {
        let cutoffMs = nowMs - maxAgeMs
        let holds = try await BucketHolds(client: archive.client, layout: archive.layout).read().active(atMs: nowMs) + store.holds(nowMs: nowMs)
        let layout = archive.layout
        let lastKey = layout.manifestKey(stamp: ChunkNaming.stamp(forMs: cutoffMs))
        var deleted: [ArchiveManifest] = []
        var token: String?
        repeat {
            let page = try await archive.client.list(prefix: layout.manifestsPrefix, continuationToken: token)
            let keys = page.keys.filter { $0 <= lastKey }
            for key in keys {
                guard let manifest = try await archive.catalog.manifest(at: key), manifest.lastFrameMs < cutoffMs,
                    !holds.contains(where: { $0.covers(manifest.record) })
                else { continue }
                try await archive.client.delete(key: key)
                archive.catalog.forget(key: key)
                try await archive.client.delete(key: layout.key(forFile: manifest.chunkFile))
                try await archive.client.delete(key: layout.key(forFile: manifest.timestampsFile))
                deleted.append(manifest)
            }
            token = keys.count == page.keys.count ? page.nextContinuationToken : nil
        } while token != nil
        return deleted
    }
}
