import Crypto
import Foundation
import NIOCore
import Synchronization

/// Who may use the node's API, WebSocket and metrics: by default everyone holding the
/// access token (configured, or generated into the store); with `server.auth: none`,
/// everyone. `/api/health` and the dashboard's files are always open.
public final class AccessPolicy: Sendable {
    public enum Decision: Equatable, Sendable {
        /// Allowed; `generation` counts token rotations, so sessions on an old token can be closed.
        case allowed(generation: Int)
        case unauthorized
        case throttled(retryAfterSeconds: Int)
    }

    public enum Scope: Sendable { case api, metrics }

    private struct State {
        var token: String
        var generation = 0
        var limiter = FailedAttemptLimiter()
    }

    public let requiresToken: Bool
    /// Accepted on /metrics besides the token (Prometheus scrapes with its own bearer token).
    let metricsToken: String
    /// Where a generated token lives; nil when the token is fixed by the config or not needed.
    public let tokenFile: AccessTokenFile?
    private let state: Mutex<State>

    public static let open = AccessPolicy(requiresToken: false, token: "", metricsToken: "", tokenFile: nil)

    public init(requiresToken: Bool, token: String, metricsToken: String, tokenFile: AccessTokenFile?) {
        self.requiresToken = requiresToken
        self.metricsToken = metricsToken
        self.tokenFile = tokenFile
        state = Mutex(State(token: token))
    }

    public var generation: Int { state.withLock { $0.generation } }

    /// The token now, for RTSP's password; nil when no token is required.
    var currentToken: String? { requiresToken ? state.withLock { $0.token } : nil }

    /// Judges one request. A wrong or missing token counts against `address`; an address
    /// out of attempts is refused before its token is looked at.
    public func decide(offered: String?, scope: Scope, address: String, nowMs: Int64 = WallClock.nowMs()) -> Decision {
        guard requiresToken else { return .allowed(generation: 0) }
        return state.withLock { state in
            if let waitMs = state.limiter.retryAfterMs(for: address, nowMs: nowMs) {
                return .throttled(retryAfterSeconds: Int((waitMs + 999) / 1000))
            }
            if let offered {
                let matches = Self.sameSecret(offered, state.token)
                    || (scope == .metrics && !metricsToken.isEmpty && Self.sameSecret(offered, metricsToken))
                if matches { return .allowed(generation: state.generation) }
            }
            state.limiter.recordFailure(from: address, nowMs: nowMs)
            return .unauthorized
        }
    }

    /// Judges a request whose credential is checked against the token by `matches` (an
    /// ONVIF UsernameToken digest, an HTTP Digest response) rather than compared to it: the
    /// same limiter counts its failures, and an address out of attempts is refused first.
    func decide(address: String, nowMs: Int64 = WallClock.nowMs(), matches: (String) -> Bool) -> Decision {
        guard requiresToken else { return .allowed(generation: 0) }
        return state.withLock { state in
            if let waitMs = state.limiter.retryAfterMs(for: address, nowMs: nowMs) {
                return .throttled(retryAfterSeconds: Int((waitMs + 999) / 1000))
            }
            if matches(state.token) { return .allowed(generation: state.generation) }
            state.limiter.recordFailure(from: address, nowMs: nowMs)
            return .unauthorized
        }
    }

    /// Whether `address` is out of attempts now (a credential it offers would not be looked at).
    func isThrottled(_ address: String, nowMs: Int64 = WallClock.nowMs()) -> Bool {
        guard requiresToken else { return false }
        return state.withLock { $0.limiter.retryAfterMs(for: address, nowMs: nowMs) != nil }
    }

    /// A credential checked elsewhere (RTSP's, by GStreamer) from `address` was wrong.
    func recordFailure(from address: String, nowMs: Int64 = WallClock.nowMs()) {
        guard requiresToken else { return }
        state.withLock { $0.limiter.recordFailure(from: address, nowMs: nowMs) }
    }

    /// The current generation when `offered` is the current token (nil when it is not, e.g.
    /// rotated since it was checked); does not count as an attempt.
    func generation(ifCurrent offered: String?) -> Int? {
        guard requiresToken else { return 0 }
        return state.withLock { state in
            guard let offered, Self.sameSecret(offered, state.token) else { return nil }
            return state.generation
        }
    }

    /// Takes the token file's current token. Returns the new generation when the token changed.
    func reloadToken() throws -> Int? {
        guard let tokenFile, let token = try tokenFile.read() else { return nil }
        return state.withLock { state in
            guard !Self.sameSecret(token, state.token) else { return nil }
            state.token = token
            state.generation += 1
            return state.generation
        }
    }

    /// Compares the SHA-256 digests of both in constant time: neither the position of the
    /// first difference nor the token's length shows in the time taken.
    static func sameSecret(_ offered: String, _ secret: String) -> Bool {
        let a = Array(SHA256.hash(data: Data(offered.utf8)))
        let b = Array(SHA256.hash(data: Data(secret.utf8)))
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// What failed attempts are counted by: the peer's IP address (not its port: each connection has another).
    static func clientAddress(_ socketAddress: SocketAddress?) -> String {
        socketAddress?.ipAddress ?? "unknown"
    }

    /// The token a request offers: `Authorization: Bearer <token>`, else `?token=` (WebSocket).
    static func offeredToken(authorization: String?, query: String?) -> String? {
        if let authorization, authorization.hasPrefix("Bearer ") { return String(authorization.dropFirst("Bearer ".count)) }
        return query
    }
}
