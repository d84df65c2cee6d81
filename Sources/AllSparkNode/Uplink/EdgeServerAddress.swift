import Foundation

/// Where an edge server is, and the URLs to try for it: wss first, then ws (PROTOCOL.md:
/// clients fall back to ws:// when TLS fails), and its health check.
public struct EdgeServerAddress: Sendable, Equatable {
    public let host: String
    public let port: Int
    public let path: String

    public init(host: String, port: Int, path: String = "/") {
        self.host = host
        self.port = port
        self.path = path.isEmpty ? "/" : path
    }

    /// Parses a ws:// or wss:// URL; the scheme only decides the default port.
    public init?(url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme, scheme == "ws" || scheme == "wss",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.init(host: host, port: components.port ?? (scheme == "wss" ? 443 : 80), path: components.path)
    }

    private var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The WebSocket URLs in the order the client tries them.
    public var webSocketURLs: [String] { ["wss://\(authority)\(path)", "ws://\(authority)\(path)"] }

    public func healthURL(secure: Bool) -> URL? { URL(string: "\(secure ? "https" : "http")://\(authority)/api/health") }
}
