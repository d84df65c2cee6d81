import Logging
import ServiceLifecycle

/// Deletes chunks past the age limit (`videoBufferMaxAgeHours`) a few times a minute, so
/// none outlives the limit by more than `interval` (the cap's eviction only runs when
/// chunks are written, and a quiet camera may have room for weeks).
struct AgeRetention: Service {
    let store: ChunkStore
    let logger: Logger
    /// A chunk outlives the limit by at most this (and a pass), well under a minute.
    var interval: Duration = .seconds(10)
    /// Chunks deleted under one hold of the store's lock.
    static let batch = 256

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                var deleted: [ChunkRecord] = []
                while true {
                    let batch = store.evictExpired(atMost: Self.batch)
                    deleted += batch
                    guard batch.count == Self.batch, !Task.isCancelled else { break }
                }
                if !deleted.isEmpty {
                    let bytes = deleted.reduce(Int64(0)) { $0 + $1.totalBytes }
                    logger.notice("deleted \(deleted.count) chunks (\(bytes) bytes) older than videoBufferMaxAgeHours \(Double(store.retention.maxAgeMs) / 3_600_000)")
                }
                // Cancelled at shutdown: a normal end.
                guard (try? await Task.sleep(for: interval)) != nil else { return }
            }
        }
    }
}
