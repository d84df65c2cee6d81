import Foundation

/// Wall-clock and monotonic time in the units the node stores (epoch milliseconds).
public enum WallClock {
    public static func nowMs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Epoch milliseconds with the clock's sub-millisecond part, for clock comparisons.
    public static func nowPreciseMs() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1_000_000
    }

    public static func monotonicMs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Epoch milliseconds as an ISO 8601 UTC time with milliseconds ("2026-11-26T01:33:00.000Z").
    public static func iso8601(ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// Sleeps the calling (non-async) thread; used only by the capture thread for pacing.
    static func sleep(ms: Int64) {
        guard ms > 0 else { return }
        var request = timespec(tv_sec: Int(ms / 1000), tv_nsec: Int((ms % 1000) * 1_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
