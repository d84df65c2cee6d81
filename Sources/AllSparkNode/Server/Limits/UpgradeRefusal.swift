import NIOCore
import Synchronization

/// Why the WebSocket route refused a connection's upgrade, kept until the answer goes out.
/// Hummingbird answers every upgrade its router refuses with an empty 400 (its
/// HTTP1WebSocketUpgradeChannel's failed upgrade), whatever the route threw: a missing
/// token would read as a malformed request. The route notes its own answer here (401, or
/// 429 with Retry-After) for the connection; `UpgradeRefusalWriter` sends it in place of
/// the 400.
final class UpgradeRefusals: Sendable {
    struct Refusal: Sendable {
        /// "401 Unauthorized"
        let status: String
        let message: String
        /// Header lines, each ending in CRLF.
        let extraHeaders: String
    }

    private let byConnection = Mutex<[ObjectIdentifier: Refusal]>([:])

    func note(_ refusal: Refusal, for channel: any Channel) {
        let key = ObjectIdentifier(channel)
        byConnection.withLock { $0[key] = refusal }
        channel.closeFuture.whenComplete { [self] _ in _ = byConnection.withLock { $0.removeValue(forKey: key) } }
    }

    func take(for channel: any Channel) -> Refusal? {
        byConnection.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// In every connection's pipeline below HTTP (after `ConnectionGuardHandler`), on its bytes:
/// once the WebSocket route has noted a refusal for the connection, the next answer, the
/// library's empty 400 to the failed upgrade, goes out as the noted one (the API's error
/// shape, Connection: close); what the 400 still writes is dropped. Every other byte
/// passes untouched.
final class UpgradeRefusalWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let refusals: UpgradeRefusals
    private var replaced = false

    init(refusals: UpgradeRefusals) {
        self.refusals = refusals
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if replaced {
            promise?.succeed(())
            return
        }
        guard let refusal = refusals.take(for: context.channel) else {
            context.write(data, promise: promise)
            return
        }
        replaced = true
        let body = JSONResponse.errorBody(refusal.message)
        let head = "HTTP/1.1 \(refusal.status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\(refusal.extraHeaders)\r\n"
        context.write(wrapOutboundOut(context.channel.allocator.buffer(string: head + body)), promise: promise)
    }
}
