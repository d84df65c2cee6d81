import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The node's HTTP/1 and WebSocket server with its limits: reads of `ConnectionReadSize`,
/// `ConnectionGuardHandler` first in every connection (the connection limit, the request head timeout),
/// `UpgradeRefusalWriter` (a refused WebSocket upgrade answered 401 or 429, not 400), then Hummingbird's
/// HTTP/1 with the WebSocket upgrade, whose idle timeout is `IdleConnectionTimeout` and
/// whose requests pass `RequestBodyLimitHandler`.
struct GuardedHTTPServer<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let limit: ConnectionLimit
    let refusals: RefusalCounters
    let upgradeRefusals: UpgradeRefusals

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.syncOptions?.setOption(.recvAllocator, value: ConnectionReadSize.allocator)
            try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(limit: limit, refusals: refusals))
            try channel.pipeline.syncOperations.addHandler(UpgradeRefusalWriter(refusals: upgradeRefusals))
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }

    static func builder<WebSocketResponder: HTTPResponder>(
        webSocketResponder: WebSocketResponder, webSocket: WebSocketServerConfiguration, limit: ConnectionLimit,
        refusals: RefusalCounters, upgradeRefusals: UpgradeRefusals
    ) -> HTTPServerBuilder where WebSocketResponder.Context: WebSocketRequestContext, Inner == HTTP1WebSocketUpgradeChannel {
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestBodyLimitHandler(refusals: refusals)], idleTimeout: .seconds(IdleConnectionTimeout.seconds))
        return HTTPServerBuilder { responder in
            GuardedHTTPServer(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: .init(http1: http1, ws: webSocket)),
                limit: limit, refusals: refusals, upgradeRefusals: upgradeRefusals)
        }
    }
}
