import Synchronization

/// The searches FindRecordings and FindEvents start: each a token, its results (found at
/// once: the store's index is in memory) handed out in batches by GetRecordingSearchResults
/// and GetEventSearchResults, and its end (EndSearch, or its keep-alive time passing
/// without a call). Bounded in number, and each in its results.
final class SearchSessions: Sendable {
    static let maximumCount = 8
    static let maximumResults = 10_000
    /// KeepAliveTime is required by the spec; what one may ask is bounded.
    static let keepAliveRangeMs: ClosedRange<Int64> = 1_000...600_000

    enum Kind: Sendable, Equatable { case recordings, events }

    enum Refusal: Error, Equatable {
        case tooMany
        case unknown
        case otherKind
    }

    struct Batch: Sendable, Equatable {
        var results: [String]
        /// Results are left after this batch: the search state is still `Searching`.
        var more: Bool

        var state: String { SearchSessions.stateName(more: more) }
    }

    /// ONVIF's SearchState: `Searching` while results are left to hand out, then `Completed`.
    static func stateName(more: Bool) -> String { more ? "Searching" : "Completed" }

    private struct Search {
        let kind: Kind
        var results: [String]
        var delivered = 0
        let keepAliveMs: Int64
        var expiresMs: Int64
        /// Where the search ended (EndSearch's Endpoint).
        let endPointMs: Int64
    }

    private let searches = Mutex([String: Search]())

    /// A new search over `results` (the first `maximumResults`); its token.
    func start(_ kind: Kind, results: [String], keepAliveMs: Int64, endPointMs: Int64, nowMs: Int64) throws(Refusal) -> String {
        let keepAlive = min(max(keepAliveMs, Self.keepAliveRangeMs.lowerBound), Self.keepAliveRangeMs.upperBound)
        let token = Self.newToken()
        try searches.withLock { searches throws(Refusal) in
            Self.dropExpired(&searches, nowMs: nowMs)
            guard searches.count < Self.maximumCount else { throw .tooMany }
            searches[token] = Search(
                kind: kind, results: Array(results.prefix(Self.maximumResults)), keepAliveMs: keepAlive, expiresMs: nowMs + keepAlive,
                endPointMs: endPointMs)
        }
        return token
    }

    /// The next at most `maximum` results of search `token`, which must be of `kind`.
    func next(_ token: String, kind: Kind, maximum: Int, nowMs: Int64) throws(Refusal) -> Batch {
        try searches.withLock { searches throws(Refusal) in
            Self.dropExpired(&searches, nowMs: nowMs)
            guard var search = searches[token] else { throw .unknown }
            guard search.kind == kind else { throw .otherKind }
            let end = min(search.results.count, search.delivered + max(1, maximum))
            let batch = Array(search.results[search.delivered..<end])
            search.delivered = end
            search.expiresMs = nowMs + search.keepAliveMs
            searches[token] = search
            return Batch(results: batch, more: end < search.results.count)
        }
    }

    /// The search's SearchState (`stateName`).
    func state(_ token: String, nowMs: Int64) throws(Refusal) -> String {
        try searches.withLock { searches throws(Refusal) in
            Self.dropExpired(&searches, nowMs: nowMs)
            guard let search = searches[token] else { throw .unknown }
            return Self.stateName(more: search.delivered < search.results.count)
        }
    }

    /// Ends search `token`; where it ended.
    func end(_ token: String, nowMs: Int64) throws(Refusal) -> Int64 {
        try searches.withLock { searches throws(Refusal) in
            Self.dropExpired(&searches, nowMs: nowMs)
            guard let search = searches.removeValue(forKey: token) else { throw .unknown }
            return search.endPointMs
        }
    }

    var count: Int { searches.withLock { $0.count } }

    private static func dropExpired(_ searches: inout [String: Search], nowMs: Int64) {
        searches = searches.filter { $0.value.expiresMs > nowMs }
    }

    private static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return "search-" + String(generator.next() as UInt64, radix: 16)
    }
}
