import Synchronization

/// HLS is plain requests, so an HLS viewer is a connection (players keep theirs open) that
/// fetched from /live/ lately.
final class LiveHLSViewers: Sendable {
    static let activeWindowMs: Int64 = 5000
    private let lastSeen = Mutex<[String: Int64]>([:])

    /// Notes a request and returns how many connections are active now.
    func saw(_ connection: String, nowMs: Int64 = WallClock.monotonicMs()) -> Int {
        lastSeen.withLock { seen in
            seen[connection] = nowMs
            seen = seen.filter { nowMs - $0.value <= Self.activeWindowMs }
            return seen.count
        }
    }

    func active(nowMs: Int64 = WallClock.monotonicMs()) -> Int {
        lastSeen.withLock { seen in seen.values.filter { nowMs - $0 <= Self.activeWindowMs }.count }
    }
}
