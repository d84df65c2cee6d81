import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import AllSparkNode

/// `allspark_requests_refused_total{limit}`: each limit's refusals counted once, where the
/// limit makes them (the connection guard and the body limit on an in-memory channel), and
/// exported from the first scrape. Against a recording node: Tests/protocol/test_floods.py.
@Suite("refusal counters")
struct RefusalCounterTests {
    static func totals(_ refusals: RefusalCounters) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: RefusalCounters.Limit.allCases.map { ($0.rawValue, refusals.total($0)) })
    }

    static func only(_ counted: [String: Int]) -> [String: Int] {
        var expected = Dictionary(uniqueKeysWithValues: RefusalCounters.Limit.allCases.map { ($0.rawValue, 0) })
        expected.merge(counted) { $1 }
        return expected
    }

    @Test("a connection past the limit and one with no whole head in time are each counted once, under their own limit")
    func connectionGuard() throws {
        let refusals = RefusalCounters()
        let limit = ConnectionLimit(maximum: 1)
        let idle = try FloodLimitTests.activeChannel(ConnectionGuardHandler(limit: limit, refusals: refusals))
        _ = try FloodLimitTests.activeChannel(ConnectionGuardHandler(limit: limit, refusals: refusals))
        #expect(Self.totals(refusals) == Self.only(["connection_limit": 1]))
        idle.embeddedEventLoop.advanceTime(by: .seconds(RequestHeadTimeout.seconds))
        #expect(try FloodLimitTests.written(idle).hasPrefix("HTTP/1.1 408 "))
        // Bytes still arriving while it lingers, and its close, count nothing more.
        try idle.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        idle.embeddedEventLoop.advanceTime(by: .seconds(LingeringClose.seconds))
        #expect(!idle.isActive)
        #expect(Self.totals(refusals) == Self.only(["connection_limit": 1, "request_head_timeout": 1]))

        // A connection whose head comes in time is not refused.
        let asking = try FloodLimitTests.activeChannel(ConnectionGuardHandler(limit: limit, refusals: refusals))
        try asking.writeInbound(ByteBuffer(string: "GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n"))
        asking.embeddedEventLoop.advanceTime(by: .seconds(RequestHeadTimeout.seconds * 2))
        #expect(Self.totals(refusals) == Self.only(["connection_limit": 1, "request_head_timeout": 1]))
    }

    @Test("a body announced over the limit and a chunked one growing past it are each counted once; one under it is not")
    func bodyLimit() throws {
        let refusals = RefusalCounters()
        let announced = try FloodLimitTests.activeChannel(RequestBodyLimitHandler(refusals: refusals))
        try announced.writeInbound(FloodLimitTests.request("/api/holds", length: 1 << 30))
        for _ in 0..<4 { try announced.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x5B, count: 1 << 20))) }
        #expect(refusals.total(.requestBodyLimit) == 1)

        let chunked = try FloodLimitTests.activeChannel(RequestBodyLimitHandler(refusals: refusals))
        try chunked.writeInbound(FloodLimitTests.request("/api/config", length: nil))
        for _ in 0..<4 { try chunked.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x5B, count: 32 * 1024))) }
        #expect(refusals.total(.requestBodyLimit) == 2)

        let small = try FloodLimitTests.activeChannel(RequestBodyLimitHandler(refusals: refusals))
        try small.writeInbound(FloodLimitTests.request("/api/holds", length: 100))
        try small.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x5B, count: 100)))
        #expect(Self.totals(refusals) == Self.only(["request_body_limit": 2]))
    }

    /// `allspark_requests_refused_total{limit="…"}`'s value in a scrape, nil when absent.
    static func scraped(_ limit: String, in metrics: String) -> Double? {
        let prefix = "allspark_requests_refused_total{limit=\"\(limit)\"} "
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    @Test("/metrics has every limit's counter from the first scrape, at 0, and each moves with the node's own refusals")
    func exported() throws {
        try TestNode.withServices("refusal-metrics") { services, _ in
            let exporter = MetricsExporter(services: services)
            let first = exporter.render()
            for limit in RefusalCounters.Limit.allCases { #expect(Self.scraped(limit.rawValue, in: first) == 0, "\(limit)") }
            services.refusals.count(.holdCountLimit)
            services.refusals.count(.holdCountLimit)
            services.refusals.count(.webSocketPeerLimit)
            let second = exporter.render()
            #expect(Self.scraped("hold_count_limit", in: second) == 2)
            #expect(Self.scraped("websocket_peer_limit", in: second) == 1)
            #expect(Self.scraped("connection_limit", in: second) == 0)
        }
    }
}
