import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The request context of WebSocket upgrades: the basic one plus the peer's address.
struct NodeWebSocketContext: WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }
}

/// The node's WebSocket at `/` and `/ws`: the server role of PROTOCOL.md. On connect the
/// peer gets the effective clientConfig; chunkSaved events are pushed to every peer.
struct WebSocketEndpoint {
    let services: NodeServices
    let token: String

    func makeRouter() -> Router<NodeWebSocketContext> {
        let router = Router(context: NodeWebSocketContext.self)
        for path in ["/", "/ws"] {
            router.ws(RouterPath(path), shouldUpgrade: { request, _ in
                guard token.isEmpty
                    || TokenAuthMiddleware<NodeWebSocketContext>.isAuthorized(
                        request.headers[.authorization], query: request.uri.queryParameters.get("token"), token: token)
                else { throw HTTPError(.unauthorized, message: "missing or wrong token") }
                return .upgrade([:])
            }, onUpgrade: { inbound, outbound, context in
                try await converse(inbound: inbound, outbound: outbound, context: context)
            })
        }
        return router
    }

    private func converse(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, context: WebSocketRouterContext<NodeWebSocketContext>) async throws {
        let outbox = Outbox()
        outbox.send(ProtocolMessage.clientConfig(services.live.clientConfig))
        let address = context.requestContext.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "unknown"
        let peers = services.peers
        let id = peers.register(address: address, outbox: outbox)
        defer { peers.remove(id) }
        context.logger.info("WebSocket peer connected from \(address)")
        var session = services.session(role: .server, logger: context.logger)
        session.onClientInfo = { name in peers.rename(id, to: name) }
        try await session.run(inbound: inbound, outbound: outbound, outbox: outbox)
        context.logger.info("WebSocket peer \(address) disconnected")
    }
}
