import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing
@testable import AllSparkNode

/// The limits that keep floods from costing frames (issue 49, part 5), each alone: the
/// connection guard and the body limit on an in-memory channel, the WebSocket message rate,
/// the hold count, and a bucket listing of 100,000 keys (and of 100,000 multipart uploads
/// left open) read through a stand-in. Against a recording node: Tests/protocol/test_floods.py
/// and bench/floods.py (its bucket flood against radosgw).
@Suite("flood limits")
struct FloodLimitTests {
    /// A bucket listing of `count` keys, served a page at a time as ListObjectsV2 does.
    final class ManyKeys: BucketListingSource {
        let count: Int
        let pagesAsked = Atomic<Int>(0)
        let largestPage = Atomic<Int>(0)

        init(count: Int) { self.count = count }

        func list(prefix: String, startAfter: String?, continuationToken: String?, maxKeys: Int) async throws -> S3Client.ListPage {
            pagesAsked.add(1, ordering: .relaxed)
            let first = continuationToken.flatMap(Int.init) ?? 0
            let last = min(count, first + maxKeys)
            largestPage.max(last - first, ordering: .relaxed)
            let keys = (first..<last).map { "\(prefix)\(String(format: "%08d", $0)).json" }
            return S3Client.ListPage(keys: keys, nextContinuationToken: last < count ? String(last) : nil)
        }
    }

    @Test("a bucket listing of 100,000 keys stops at the listing limit, naming it, a page in memory at a time")
    func bucketListingIsBounded() async throws {
        let bucket = ManyKeys(count: 100_000)
        var handed = 0
        await #expect(throws: BucketListingTooLong(prefix: "m/", limit: BucketListingLimit.maximumKeys)) {
            try await BucketListingLimit.forEachPage(of: bucket, prefix: "m/") { keys in
                handed += keys.count
                return true
            }
        }
        #expect(handed == BucketListingLimit.maximumKeys)
        #expect(bucket.pagesAsked.load(ordering: .relaxed) == BucketListingLimit.maximumKeys / 1000)
        #expect(bucket.largestPage.load(ordering: .relaxed) == 1000)
        #expect(BucketListingTooLong(prefix: "m/", limit: 5000).description.contains("bucket listing limit"))

        // Under the limit, every key; and a caller that has what it needs stops the listing.
        let small = ManyKeys(count: 2_500)
        var all = 0
        try await BucketListingLimit.forEachPage(of: small, prefix: "m/") { all += $0.count; return true }
        #expect(all == 2_500)
        let exactly = ManyKeys(count: BucketListingLimit.maximumKeys)
        try await BucketListingLimit.forEachPage(of: exactly, prefix: "m/") { _ in true }
        let stopped = ManyKeys(count: 100_000)
        try await BucketListingLimit.forEachPage(of: stopped, prefix: "m/") { _ in false }
        #expect(stopped.pagesAsked.load(ordering: .relaxed) == 1)
    }

    /// `count` multipart uploads left open, served a page at a time after the marker (the last
    /// upload of the page before) as ListMultipartUploads does.
    final class OpenUploads: MultipartUploadListingSource {
        let count: Int
        let pagesAsked = Atomic<Int>(0)
        let largestPage = Atomic<Int>(0)

        init(count: Int) { self.count = count }

        static func upload(_ index: Int) -> S3Client.MultipartUpload {
            S3Client.MultipartUpload(key: "p/chunk_\(String(format: "%08d", index)).mp4", uploadId: "upload-\(index)")
        }

        func listMultipartUploads(prefix: String, after marker: S3Client.MultipartUpload?, maxUploads: Int) async throws -> S3Client.UploadPage {
            pagesAsked.add(1, ordering: .relaxed)
            let first = marker.flatMap { Int($0.uploadId.dropFirst("upload-".count)) }.map { $0 + 1 } ?? 0
            let last = min(count, first + maxUploads)
            largestPage.max(last - first, ordering: .relaxed)
            let uploads = (first..<last).map(Self.upload)
            return S3Client.UploadPage(uploads: uploads, nextMarker: last < count ? uploads.last : nil)
        }
    }

    @Test("100,000 multipart uploads left open are listed a page after another and stop at the listing limit, naming it")
    func openUploadListingIsBounded() async throws {
        let open = OpenUploads(count: 100_000)
        var handed: [S3Client.MultipartUpload] = []
        await #expect(throws: BucketListingTooLong(prefix: "p/", limit: BucketListingLimit.maximumKeys)) {
            try await BucketListingLimit.forEachUploadPage(of: open, prefix: "p/") { uploads in
                handed += uploads
                return true
            }
        }
        // Each page starts after the one before: the first 5,000, none twice, a page of 1,000 asked at a time.
        #expect(handed == (0..<BucketListingLimit.maximumKeys).map(OpenUploads.upload))
        #expect(open.pagesAsked.load(ordering: .relaxed) == BucketListingLimit.maximumKeys / 1000)
        #expect(open.largestPage.load(ordering: .relaxed) == 1000)

        // Under the limit, every one of them.
        let few = OpenUploads(count: 1_500)
        var all: [S3Client.MultipartUpload] = []
        try await BucketListingLimit.forEachUploadPage(of: few, prefix: "p/") { uploads in
            all += uploads
            return true
        }
        #expect(all == (0..<1_500).map(OpenUploads.upload))
    }

    @Test("a WebSocket peer's messages: a burst of 20 at once, then 10 a second")
    func messageRate() {
        let start = ContinuousClock.now
        var rate = MessageRateLimit(now: start)
        for _ in 0..<Int(MessageRateLimit.burst) { #expect(rate.take(now: start) == .zero) }
        #expect(rate.take(now: start) == .milliseconds(100))
        // A second later ten more, and no more than the burst after a long pause.
        var later = MessageRateLimit(now: start)
        for _ in 0..<Int(MessageRateLimit.burst) { _ = later.take(now: start) }
        let second = start + .seconds(1)
        for _ in 0..<Int(MessageRateLimit.perSecond) { #expect(later.take(now: second) == .zero) }
        #expect(later.take(now: second) > .zero)
        let hourLater = start + .seconds(3600)
        for _ in 0..<Int(MessageRateLimit.burst) { #expect(later.take(now: hourLater) == .zero) }
        #expect(later.take(now: hourLater) > .zero)
        #expect(MessageRateLimit.notice.contains("message rate limit"))
    }

    @Test("the hold count limit: past it a hold is refused naming the limit, and placed again once one is released")
    func holdCount() throws {
        let test = try TestStore(chunks: 2, label: "hold-count")
        let holds = (0..<HoldCountLimit.maximum).map { index in
            Hold(startMs: TestStore.startMs(0), endMs: TestStore.startMs(0) + 1000, reason: "flood \(index)", createdMs: TestStore.firstMs, expiresMs: nil)
        }
        try test.store.holdLedger.file.write(holds)
        #expect(throws: HoldError.tooMany(limit: HoldCountLimit.maximum)) { try test.hold(0...0) }
        #expect(HoldError.tooMany(limit: HoldCountLimit.maximum).description.contains("hold count limit"))
        // The ledger itself refuses too (the command line places holds without the node).
        let request = try HoldRequest(startMs: TestStore.startMs(1), endMs: TestStore.startMs(1) + 1000, reason: "cli")
        #expect(throws: HoldError.tooMany(limit: HoldCountLimit.maximum)) {
            try test.store.holdLedger.add(request, chunks: { [] }, budget: { HoldShareBudget(capBytes: 1 << 30, share: 1, recentChunks: $0) })
        }
        _ = try test.store.releaseHold(id: holds[0].id)
        #expect(try test.hold(1...1).hold.reason == "test")
    }

    static func activeChannel(_ handler: some ChannelHandler) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return channel
    }

    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    @Test("a connection with no whole request head in 10 s is answered 408 naming the timeout; one with a head is not")
    func requestHeadTimeout() throws {
        let limit = ConnectionLimit(maximum: 10)
        let idle = try Self.activeChannel(ConnectionGuardHandler(limit: limit, refusals: RefusalCounters()))
        try idle.writeInbound(ByteBuffer(string: "GET /api/status HTTP/1.1\r\nHost: x\r\n"))
        idle.embeddedEventLoop.advanceTime(by: .seconds(RequestHeadTimeout.seconds - 1))
        #expect(try Self.written(idle).isEmpty)
        idle.embeddedEventLoop.advanceTime(by: .seconds(1))
        let answer = try Self.written(idle)
        #expect(answer.hasPrefix("HTTP/1.1 408 "))
        #expect(answer.contains("Connection: close") && answer.contains("request head timeout") && answer.contains("\"status\":\"error\""))
        // Closed once it has lingered (its output shut at once), and no longer counted.
        idle.embeddedEventLoop.advanceTime(by: .seconds(LingeringClose.seconds))
        #expect(!idle.isActive)

        let asking = try Self.activeChannel(ConnectionGuardHandler(limit: limit, refusals: RefusalCounters()))
        try asking.writeInbound(ByteBuffer(string: "GET /api/status HTTP/1.1\r\nHost: x\r\n"))
        try asking.writeInbound(ByteBuffer(string: "\r\n"))
        asking.embeddedEventLoop.advanceTime(by: .seconds(RequestHeadTimeout.seconds * 3))
        #expect(try Self.written(asking).isEmpty)
        #expect(try asking.readInbound(as: ByteBuffer.self) != nil)
        #expect(limit.count == 1)
        _ = try asking.finish()
        #expect(limit.count == 0)
    }

    @Test("past the connection limit a connection is answered 503 naming the limit; a closed one makes room")
    func connectionLimit() throws {
        let limit = ConnectionLimit(maximum: 2)
        let first = try Self.activeChannel(ConnectionGuardHandler(limit: limit, refusals: RefusalCounters()))
        let second = try Self.activeChannel(ConnectionGuardHandler(limit: limit, refusals: RefusalCounters()))
        let third = try Self.activeChannel(ConnectionGuardHandler(limit: limit, refusals: RefusalCounters()))
        #expect(try Self.written(first).isEmpty && Self.written(second).isEmpty)
        let refusal = try Self.written(third)
        #expect(refusal.hasPrefix("HTTP/1.1 503 ") && refusal.contains("connection limit") && refusal.contains("Retry-After: 1"))
        // Its request is never passed on.
        try? third.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))
        #expect(try third.readInbound(as: ByteBuffer.self) == nil)
        _ = try first.finish()
        let fourth = try Self.activeChannel(ConnectionGuardHandler(limit: limit, refusals: RefusalCounters()))
        #expect(try Self.written(fourth).isEmpty)
        #expect(limit.count == 2)
    }

    static func request(_ path: String, length: Int?) -> HTTPRequestPart {
        var head = HTTPRequest(method: .post, scheme: nil, authority: "x", path: path)
        if let length { head.headerFields[.contentLength] = String(length) }
        return .head(head)
    }

    @Test("a body announced over 64 KiB is answered 413 naming the limit before any of it is read; a chunked one ends its connection")
    func bodyLimit() throws {
        let channel = try Self.activeChannel(RequestBodyLimitHandler(refusals: RefusalCounters()))
        try channel.writeInbound(Self.request("/api/holds", length: 1 << 30))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self),
            case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self)
        else { Issue.record("no 413 written"); return }
        #expect(head.status == .contentTooLarge && head.headerFields[.connection] == "close")
        let answer = JSONValue.parse(String(buffer: body))
        #expect(answer?["status"]?.string == "error" && answer?["limitBytes"]?.number == 65536)
        #expect(answer?["message"]?.string?.contains("request body limit") == true)
        // What still comes of the body is dropped, never passed up.
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x5B, count: 1 << 20)))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == nil)

        // A body under the limit passes; one without a length that grows past it is passed up
        // to the part that crosses (the route refuses it) and the connection ends once answered.
        let small = try Self.activeChannel(RequestBodyLimitHandler(refusals: RefusalCounters()))
        try small.writeInbound(Self.request("/api/holds", length: 100))
        #expect(try small.readInbound(as: HTTPRequestPart.self) != nil)
        let chunked = try Self.activeChannel(RequestBodyLimitHandler(refusals: RefusalCounters()))
        try chunked.writeInbound(Self.request("/api/config", length: nil))
        for _ in 0..<3 { try chunked.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x5B, count: 32 * 1024))) }
        var passed = 0
        while let part = try chunked.readInbound(as: HTTPRequestPart.self) { if case .body = part { passed += 1 } }
        #expect(passed == 3)
        try chunked.writeInbound(HTTPRequestPart.body(ByteBuffer(repeating: 0x5B, count: 32 * 1024)))
        #expect(try chunked.readInbound(as: HTTPRequestPart.self) == nil)
        #expect(chunked.isActive)
        try chunked.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .contentTooLarge)))
        try chunked.writeOutbound(HTTPResponsePart.end(nil))
        chunked.embeddedEventLoop.advanceTime(by: .seconds(LingeringClose.seconds))
        #expect(!chunked.isActive)
    }
}
