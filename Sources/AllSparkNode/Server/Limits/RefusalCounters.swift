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

    // Refusals are rare and off the frame path: one lock over a small table is enough.
    private let totals = Mutex<[Limit: Int]>([:])

    public init() {}

    func count(_ limit: Limit) {
        totals.withLock { $0[limit, default: 0] += 1 }
    }

    func total(_ limit: Limit) -> Int {
        totals.withLock { $0[limit, default: 0] }
    }
}
