/// Where the node's mDNS advertisement stands, for logs and the health endpoint.
public enum PublisherState: Sendable, Equatable, CustomStringConvertible {
    /// Not started, or stopped (the service is withdrawn).
    case stopped
    /// No avahi-daemon or no D-Bus yet; the publisher keeps retrying.
    case waitingForDaemon
    /// Sent to the daemon under this name, not yet confirmed.
    case registering(name: String)
    /// Published under this name.
    case registered(name: String)
    /// `taken` was already in use on the network; `trying` is being registered instead.
    case collision(taken: String, trying: String)
    /// Cannot publish; `reason` says why. The publisher retries where that can help.
    case failed(reason: String)

    public var isRegistered: Bool {
        if case .registered = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .stopped: "stopped"
        case .waitingForDaemon: "waiting for avahi-daemon"
        case .registering(let name): "registering \"\(name)\""
        case .registered(let name): "registered as \"\(name)\""
        case .collision(let taken, let trying): "name \"\(taken)\" taken, trying \"\(trying)\""
        case .failed(let reason): "failed: \(reason)"
        }
    }
}
