import NIOWebSocket

/// How many peers the node's own WebSocket serves at once. A peer past it is upgraded, sent
/// one status message naming the limit (the API's error shape, with `limit`) and closed
/// with 1013 (try again later): the upgrade's refusal could carry no body.
enum WebSocketPeerLimit {
    static let maximum = 64
    static let closeCode = WebSocketErrorCode.unknown(1013)

    static var refusal: String {
        "the node has \(maximum) WebSocket peers connected, its limit (WebSocket peer limit); try again later"
    }
}
