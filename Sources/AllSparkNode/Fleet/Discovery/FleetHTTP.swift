import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The one HTTP client the fleet commands talk to nodes with. Every request is bounded: a
/// node that does not connect, or stops sending, fails within these times, so nothing hangs.
public final class FleetHTTP: Sendable {
    public struct Timeouts: Sendable {
        public var connect: TimeAmount = .seconds(3)
        /// Longest silence while reading an answer (a stalled node).
        public var read: TimeAmount = .seconds(15)
        /// A small JSON answer (health, listings) must be whole within this.
        public var small: TimeAmount = .seconds(20)
        /// A file: this plus what its bytes need at 64 KiB/s.
        public var file: TimeAmount = .seconds(30)
        public init() {}
    }

    let http: HTTPClient
    public let timeouts: Timeouts

    public init(timeouts: Timeouts = Timeouts()) {
        self.timeouts = timeouts
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: timeouts.connect, read: timeouts.read)
        configuration.decompression = .disabled
        // A node that refuses a connection is not listening now. Retrying until the connect
        // timeout made every stopped node cost 3 s of discovery (the probes are awaited
        // together); its footage comes from the bucket instead, and a re-run resumes.
        configuration.connectionPool.retryConnectionEstablishment = false
        // Nodes serve self-signed certificates (server.tls: auto); the token is the check.
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        configuration.tlsConfiguration = tls
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async {
        try? await http.shutdown()
    }

    static func timeout(forBytes bytes: Int64, base: TimeAmount) -> TimeAmount {
        base + .seconds(bytes / (64 * 1024))
    }

    /// GET `url` and the whole body (at most `limit` bytes); the status and body whatever it is.
    func getSmall(_ url: String, token: String?, limit: Int = 8 << 20) async throws -> (status: Int, body: ByteBuffer) {
        let response = try await http.execute(request(url, token: token), timeout: timeouts.small)
        return (Int(response.status.code), try await response.body.collect(upTo: limit))
    }

    /// POST a small JSON body to `url`; the status and the whole (small) answer.
    func postJSON(_ url: String, token: String?, body: [UInt8]) async throws -> (status: Int, body: ByteBuffer) {
        var request = request(url, token: token)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await http.execute(request, timeout: timeouts.small)
        return (Int(response.status.code), try await response.body.collect(upTo: 1 << 20))
    }

    /// Starts a GET; the caller reads the body.
    func get(_ url: String, token: String?, headers: [(String, String)] = [], timeout: TimeAmount) async throws -> HTTPClientResponse {
        var request = request(url, token: token)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return try await http.execute(request, timeout: timeout)
    }

    private func request(_ url: String, token: String?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        return request
    }
}
