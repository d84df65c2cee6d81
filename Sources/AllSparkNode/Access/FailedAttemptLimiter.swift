/// Slows guessing: each address may fail authentication `allowance` times; a failure uses
/// one, and one comes back every `refillMs`. An address with none left is refused (429)
/// without its token being looked at, until one comes back. Other addresses are unaffected.
struct FailedAttemptLimiter: Sendable {
    static let allowance = 10.0
    /// 10 per minute.
    static let refillMs = 6000.0
    /// Addresses remembered at most; the quietest are forgotten first.
    static let addressesKept = 4096

    private struct Bucket {
        var remaining: Double
        var updatedMs: Int64
    }

    private var buckets: [String: Bucket] = [:]

    /// Milliseconds until `address` may try again, or nil when it may try now.
    func retryAfterMs(for address: String, nowMs: Int64) -> Int64? {
        guard let bucket = buckets[address] else { return nil }
        let remaining = refilled(bucket, nowMs: nowMs)
        guard remaining < 1 else { return nil }
        return Int64(((1 - remaining) * Self.refillMs).rounded(.up))
    }

    mutating func recordFailure(from address: String, nowMs: Int64) {
        let remaining = buckets[address].map { refilled($0, nowMs: nowMs) } ?? Self.allowance
        buckets[address] = Bucket(remaining: max(0, remaining - 1), updatedMs: nowMs)
        if buckets.count > Self.addressesKept, let quietest = buckets.min(by: { $0.value.updatedMs < $1.value.updatedMs }) {
            buckets.removeValue(forKey: quietest.key)
        }
    }

    private func refilled(_ bucket: Bucket, nowMs: Int64) -> Double {
        min(Self.allowance, bucket.remaining + Double(nowMs - bucket.updatedMs) / Self.refillMs)
    }
}
