import Synchronization

/// Viewers and what they were sent, by kind, for /api/status and /metrics.
final class LiveCounters: Sendable {
    enum Kind: String, CaseIterable, Sendable { case mse, hls, rtsp, replay }

    final class PerKind: Sendable {
        /// Connected now (HLS: distinct addresses that fetched in the last few seconds).
        let viewers = Atomic<Int>(0)
        let bytesSent = Atomic<Int>(0)
        /// Times a viewer fell behind and skipped ahead to a keyframe.
        let skips = Atomic<Int>(0)
        /// Viewers disconnected for being stalled too long.
        let dropped = Atomic<Int>(0)
    }

    private let kinds: [Kind: PerKind] = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0, PerKind()) })
    /// Times the fMP4 fragmenter itself fell behind the ring (a busy machine).
    let fragmenterSkips = Atomic<Int>(0)

    func of(_ kind: Kind) -> PerKind { kinds[kind]! }
}

extension LiveCounters {
    struct Totals: Sendable {
        let viewers: Int
        let bytesSent: Int
        let skips: Int
        let dropped: Int
    }

    func totals(_ kind: Kind) -> Totals {
        let counters = of(kind)
        return Totals(
            viewers: counters.viewers.load(ordering: .relaxed), bytesSent: counters.bytesSent.load(ordering: .relaxed),
            skips: counters.skips.load(ordering: .relaxed), dropped: counters.dropped.load(ordering: .relaxed))
    }
}
