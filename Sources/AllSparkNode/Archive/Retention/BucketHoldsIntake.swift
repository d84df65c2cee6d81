import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Takes the holds `fleet hold` left in the bucket for this node while it was down
/// (`BucketHolds`) into its own ring: at start, before the recorder can evict the held
/// chunks, and again every `interval` (a hold the fleet put in the bucket while it could
/// not reach a running node). Each is placed as the API places one, with its own id, so a
/// hold the holds file has already is not placed twice; then it is marked taken in the
/// bucket, and the node's holds file keeps it from then on. A hold that cannot be placed
/// (past `videoBufferMaxHeldShare`, another span under the same id) stays in the bucket,
/// where the archive keeps its span, and is logged and tried again; a hold that lapsed
/// before the node came back is removed.
final class BucketHoldsIntake: Service, Sendable {
    let holds: BucketHolds
    let store: ChunkStore
    let nodeName: String
    let logger: Logger
    let interval: Duration
    let retryInterval: Duration
    private let state = Mutex(State())

    private struct State {
        var succeeded = false
        /// What was logged last for each hold id or object key, not to log it every pass.
        var logged: [String: String] = [:]
        var lastError: String?
    }

    /// What one pass did, by hold id (`kept`: why it stays in the bucket).
    struct Outcome: Sendable, Equatable {
        var taken: [String] = []
        var kept: [String: String] = [:]
        var lapsed: [String] = []
        var unreadable: [String] = []
    }

    init(holds: BucketHolds, store: ChunkStore, nodeName: String, logger: Logger, interval: Duration = .seconds(60), retryInterval: Duration = .seconds(10)) {
        self.holds = holds
        self.store = store
        self.nodeName = nodeName
        self.logger = logger
        self.interval = interval
        self.retryInterval = retryInterval
    }

    convenience init(archive: ChunkArchive, store: ChunkStore, logger: Logger) {
        self.init(holds: BucketHolds(client: archive.client, layout: archive.layout), store: store, nodeName: archive.nodeName, logger: logger)
    }

    /// The start's pass, given at most `limit`: a bucket that does not answer delays the
    /// recorder no longer than that (the service tries again).
    func firstPass(within limit: Duration) async {
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.passLogged() || true }
            group.addTask { (try? await Task.sleep(for: limit)) == nil }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !finished {
            logger.warning("archive: the bucket did not answer within \(limit) for this node's holds in it (fleet hold); the node starts and takes them when it answers")
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var delay: Duration = self.state.withLock { $0.succeeded } ? self.interval : .zero
            while !Task.isCancelled {
                if delay > .zero { guard (try? await Task.sleep(for: delay)) != nil else { return } }
                delay = await self.passLogged() ? self.interval : self.retryInterval
            }
        }
    }

    /// One pass; a failure is logged (once until it changes) and reported as false.
    private func passLogged() async -> Bool {
        do {
            _ = try await pass()
            let recovered = state.withLock { state in
                defer { state.succeeded = true; state.lastError = nil }
                return state.lastError != nil
            }
            if recovered { logger.notice("archive: the bucket's holds for this node are read again") }
            return true
        } catch {
            guard !Task.isCancelled else { return false }
            let message = "\(error)"
            if state.withLock({ state in defer { state.lastError = message }; return state.lastError != message }) {
                logger.warning("archive: could not read or update this node's holds in the bucket (fleet hold), tried again in \(retryInterval): \(message)")
            }
            return false
        }
    }

    /// Reads the bucket's holds for this node and takes each one in force into the ring.
    func pass(nowMs: Int64 = WallClock.nowMs()) async throws -> Outcome {
        let scan = try await holds.scan()
        var outcome = Outcome()
        for bad in scan.unreadable {
            outcome.unreadable.append(bad.key)
            logOnce(bad.key, "archive: \(holds.bucket.name)/\(bad.key) is not a holds record (\(bad.reason)); its holds are not taken, and the archive's age deletion stops until it is mended or removed", level: .error)
        }
        for waiting in scan.waiting {
            let hold = waiting.hold
            guard hold.isActive(atMs: nowMs) else {
                try await holds.removeLapsed(waiting)
                outcome.lapsed.append(hold.id)
                continue
            }
            let placement: HoldPlacement
            do {
                let request = try HoldRequest(
                    startMs: hold.startMs, endMs: hold.endMs, reason: hold.reason, expiresMs: hold.expiresMs, id: hold.id, nowMs: nowMs)
                placement = try store.placeHold(request)
            } catch {
                outcome.kept[hold.id] = "\(error)"
                logOnce(hold.id, "archive: hold \(hold.id) (\(hold.reason)) in \(holds.bucket.name)/\(waiting.key) cannot be placed on this node's ring: \(error). It stays in the bucket, where the archive keeps its span, and is tried again every \(interval)", level: .warning)
                continue
            }
            try await holds.markTaken(hold, from: waiting.key, node: nodeName, nowMs: nowMs)
            outcome.taken.append(hold.id)
            state.withLock { _ = $0.logged.removeValue(forKey: hold.id) }
            logger.notice("archive: hold \(hold.id) (\(hold.reason)), put in \(holds.bucket.name)/\(waiting.key) by fleet hold, is taken into the ring: \(placement.chunks.count) chunks held here now; \(holds.layout.takenHoldKey(id: hold.id)) says so")
        }
        return outcome
    }

    private func logOnce(_ subject: String, _ message: String, level: Logger.Level) {
        guard state.withLock({ state in defer { state.logged[subject] = message }; return state.logged[subject] != message }) else { return }
        logger.log(level: level, "\(message)")
    }
}
