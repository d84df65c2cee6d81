import Synchronization

/// What the uplink to an edge server is doing, for /api/health, /api/status and the dashboard.
public struct UplinkState: Sendable, Equatable {
    public enum Phase: String, Sendable {
        case off, discovering, connecting, connected, waiting
    }

    public var phase: Phase = .off
    /// The edge server's WebSocket URL when known.
    public var url: String?
    public var clientName: String?
    public var connectedSinceMs: Int64?
    public var lastError: String?
    public var lastCommand: String?
    public var lastCommandAtMs: Int64?
    /// Failed attempts since the last connection that stayed up, and when the next is due.
    public var reconnectAttempt = 0
    public var nextAttemptAtMs: Int64?
    /// The edge server's clock against the node's; kept after a disconnect, with its time.
    public var edgeClock: EdgeClockEstimate?

    public init() {}
}

public final class UplinkStateBox: Sendable {
    private let state = Mutex(UplinkState())
    public init() {}
    public var current: UplinkState { state.withLock { $0 } }
    func update(_ change: (inout UplinkState) -> Void) { state.withLock { change(&$0) } }
}
