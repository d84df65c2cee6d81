/// A kept-alive connection with no request, a later request head that does not finish, or a
/// request body with no bytes, for this long is closed: Hummingbird's HTTP/1 idle timeout.
/// A request being answered (a clip, a live stream) is never idle; neither is a WebSocket.
enum IdleConnectionTimeout {
    static let seconds: Int64 = 30
}
