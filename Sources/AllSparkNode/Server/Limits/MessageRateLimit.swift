/// How fast one WebSocket peer's messages are read: a token bucket of `burst` messages
/// filled at `perSecond`. A peer sending faster is not cut off; its next message is read
/// only when the bucket has one again, so its socket fills and TCP slows it, and it is told
/// once, naming the limit. 64 peers flooding (`WebSocketPeerLimit`) cost the node at most
/// 640 messages a second, leaving the recorder its CPU.
struct MessageRateLimit {
    static let perSecond = 10.0
    static let burst = 20.0

    static var notice: String {
        "over \(Int(perSecond)) messages a second (burst \(Int(burst))), the node's limit per WebSocket peer (message rate limit); the rest are read at that rate"
    }

    private var tokens = MessageRateLimit.burst
    private var last: ContinuousClock.Instant

    init(now: ContinuousClock.Instant = .now) {
        last = now
    }

    /// Takes one message's token; returns how long to wait before reading the next one (zero when none).
    mutating func take(now: ContinuousClock.Instant = .now) -> Duration {
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(Self.burst, tokens + seconds * Self.perSecond) - 1
        return tokens >= 0 ? .zero : .milliseconds(Int64((-tokens / Self.perSecond * 1000).rounded(.up)))
    }
}
