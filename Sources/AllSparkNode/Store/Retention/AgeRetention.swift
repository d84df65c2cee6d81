import Logging
import ServiceLifecycle

/// Deletes chunks past the age limit (`videoBufferMaxAgeHours`) a few times a minute, so
/// none outlives the limit by more than `interval` (the cap's eviction only runs when
/// chunks are written, and a quiet camera may have room for weeks).
struct AgeRetention: Service {
    let store: ChunkStore
    let logger: Logger
    /// Well under the minute the issue allows past the limit.
    var interval: Duration = .seconds(10)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let deleted = store.evictExpired()
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
