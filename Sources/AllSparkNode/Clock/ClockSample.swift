/// One request and reply to the edge server: the node's wall-clock times (epoch ms) when the
/// request left and the reply had arrived, and the server's time in its reply. The server
/// read its clock somewhere in between, so the offset it implies is wrong by at most half
/// the round trip, whichever way the delay fell.
public struct ClockSample: Sendable, Equatable {
    public let sentMs: Double
    public let receivedMs: Double
    public let serverMs: Double

    public init(sentMs: Double, receivedMs: Double, serverMs: Double) {
        self.sentMs = sentMs
        self.receivedMs = receivedMs
        self.serverMs = serverMs
    }

    public var roundTripMs: Double { receivedMs - sentMs }
    /// Server time minus node time: positive when the edge server's clock is ahead.
    public var offsetMs: Double { serverMs - (sentMs + receivedMs) / 2 }
    var midpointMs: Double { (sentMs + receivedMs) / 2 }
}
