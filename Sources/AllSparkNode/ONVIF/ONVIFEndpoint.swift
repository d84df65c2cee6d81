/// Where a client reached the node, from its request's `Host` header: every address the
/// ONVIF services hand out (XAddrs, stream and snapshot URIs) is built from it, so a client
/// gets addresses it can reach, never 0.0.0.0 or localhost.
struct ONVIFEndpoint: Sendable, Equatable {
    /// `http` or `https`.
    let scheme: String
    /// The host as the client wrote it: a name, an IPv4 address, or `[v6]`.
    let host: String
    let port: Int
    let rtspPort: Int

    static let devicePath = "/onvif/device_service"
    static let mediaPath = "/onvif/media_service"
    static let media2Path = "/onvif/media2_service"
    static let snapshotPath = "/onvif/snapshot.jpg"
    static let eventPath = "/onvif/event_service"
    static let recordingPath = "/onvif/recording_service"
    static let searchPath = "/onvif/search_service"
    static let replayPath = "/onvif/replay_service"
    /// A PullPoint subscription's address, `/onvif/subscription/<id>`.
    static let subscriptionPathPrefix = "/onvif/subscription/"

    /// Reads `authority` (`host`, `host:port`, `[v6]:port`); nil when it is absent or not a
    /// plain host (a user part, a path, a bad port or a character a URL cannot carry).
    init?(authority: String?, tls: Bool, defaultPort: Int, rtspPort: Int) {
        guard let authority, !authority.isEmpty, authority.count <= 255 else { return nil }
        let allowed = authority.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSetASCII.isAlphanumeric(scalar) || "-._:[]".unicodeScalars.contains(scalar))
        }
        guard allowed else { return nil }
        scheme = tls ? "https" : "http"
        self.rtspPort = rtspPort
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty {
                port = defaultPort
            } else {
                guard rest.hasPrefix(":"), let given = Int(rest.dropFirst()), (1...65535).contains(given) else { return nil }
                port = given
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2, !parts[0].isEmpty else { return nil }
            host = String(parts[0])
            if parts.count == 2 {
                guard let given = Int(parts[1]), (1...65535).contains(given) else { return nil }
                port = given
            } else {
                port = defaultPort
            }
        }
    }

    init(scheme: String, host: String, port: Int, rtspPort: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.rtspPort = rtspPort
    }

    var base: String { "\(scheme)://\(host):\(port)" }
    var deviceService: String { base + Self.devicePath }
    var mediaService: String { base + Self.mediaPath }
    var media2Service: String { base + Self.media2Path }
    var snapshotURI: String { base + Self.snapshotPath }
    var eventService: String { base + Self.eventPath }
    var recordingService: String { base + Self.recordingPath }
    var searchService: String { base + Self.searchPath }
    var replayService: String { base + Self.replayPath }
    func subscription(_ id: String) -> String { base + Self.subscriptionPathPrefix + id }
    /// The masked live stream; nil when RTSP is off.
    var streamURI: String? { rtspPort > 0 ? "rtsp://\(host):\(rtspPort)/live" : nil }
    /// The recording replayed (ONVIF Streaming's onvif-replay); nil when RTSP is off.
    var replayURI: String? { rtspPort > 0 ? "rtsp://\(host):\(rtspPort)\(ReplayMount.path)" : nil }
}

enum CharacterSetASCII {
    static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        (0x61...0x7A).contains(scalar.value) || (0x41...0x5A).contains(scalar.value) || (0x30...0x39).contains(scalar.value)
    }
}
