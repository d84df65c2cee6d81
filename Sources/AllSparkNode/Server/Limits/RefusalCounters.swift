import Synchronization

/// How many times each of the node's limits has refused something since it started, for
/// `allspark_requests_refused_total{limit}` in /metrics: a node being flooded shows there
/// rather than only in its log. Each refusal is counted once, where the limit makes it.
public final class RefusalCounters: Sendable {
    /// The `limit` label of each counter.
    enum Limit: String, CaseIterable, Sendable {
        case connectionLimit = "connection_limit"
        case requestHeadTimeout = "request_head_timeout"
        case requestBodyLimit = "request_body_limit"
        case webSocketPeerLimit = "websocket_peer_limit"
        case messageRateLimit = "message_rate_limit"
        case holdCountLimit = "hold_count_limit"
        case bucketListingLimit = "bucket_listing_limit"
    }

    // One atomic each: Atomic cannot be kept in a collection (it is not copyable).
    private let connectionLimit = Atomic<Int>(0)
    private let requestHeadTimeout = Atomic<Int>(0)
    private let requestBodyLimit = Atomic<Int>(0)
    private let webSocketPeerLimit = Atomic<Int>(0)
    private let messageRateLimit = Atomic<Int>(0)
    private let holdCountLimit = Atomic<Int>(0)
    private let bucketListingLimit = Atomic<Int>(0)

    public init() {}

    func count(_ limit: Limit) {
        withCounter(limit) { $0.add(1, ordering: .relaxed) }
    }

    func total(_ limit: Limit) -> Int {
        withCounter(limit) { $0.load(ordering: .relaxed) }
    }

    private func withCounter<Result>(_ limit: Limit, _ body: (borrowing Atomic<Int>) -> Result) -> Result {
        switch limit {
        case .connectionLimit: body(connectionLimit)
        case .requestHeadTimeout: body(requestHeadTimeout)
        case .requestBodyLimit: body(requestBodyLimit)
        case .webSocketPeerLimit: body(webSocketPeerLimit)
        case .messageRateLimit: body(messageRateLimit)
        case .holdCountLimit: body(holdCountLimit)
        case .bucketListingLimit: body(bucketListingLimit)
        }
    }
}
