/// A service (an edge server, a node) found on the LAN with mDNS.
public struct DiscoveredService: Sendable, Equatable {
    /// A numeric address, IPv4 when the server has one; link-local IPv6 carries its `%interface`.
    public let host: String
    public let port: Int
    /// The DNS-SD instance name, e.g. "AllSpark Server".
    public let name: String
    /// The server's mDNS host name, e.g. "lab-server.local".
    public let hostName: String
    /// The TXT record's `key=value` entries.
    public let txt: [String: String]

    public init(host: String, port: Int, name: String, hostName: String, txt: [String: String] = [:]) {
        self.txt = txt
        self.host = host
        self.port = port
        self.name = name
        self.hostName = hostName
    }

    /// The WebSocket URL of the server's root path, where the protocol is served.
    public func webSocketURL(secure: Bool) -> String {
        let hostPart = host.contains(":") ? "[\(host.replacingOccurrences(of: "%", with: "%25"))]" : host
        return "\(secure ? "wss" : "ws")://\(hostPart):\(port)/"
    }
}
