import NIOCore

/// How a connection ends after an answer that refuses bytes still coming (413, 503): its
/// output is shut first, so the client reads the whole answer and its end, and what still
/// arrives is dropped for up to `seconds`, then the connection closes; past `maximumBytes`
/// dropped, reading stops for the rest of that time.
/// Closed at once with unread bytes, the kernel would reset it, and a reset can take the
/// answer with it before the client has read it.
enum LingeringClose {
    static let seconds: Int64 = 2
    static let maximumBytes = 8 << 20

    static func start(_ channel: any Channel) {
        channel.close(mode: .output).whenComplete { result in
            guard case .success = result else {
                channel.close(promise: nil)
                return
            }
            channel.eventLoop.scheduleTask(in: .seconds(seconds)) { channel.close(promise: nil) }
        }
    }
}
