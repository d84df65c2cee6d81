import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// The request context of WebSocket upgrades: the basic one plus the peer's address and the
/// connection's event loop (uploads pace their pieces by it, as the uplink's do).
struct NodeWebSocketContext: WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let remoteAddress: SocketAddress?
    let eventLoop: any EventLoop
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
        eventLoop = source.channel.eventLoop
        channel = source.channel
    }
}

/// The node's WebSocket at `/` and `/ws`: the server role of PROTOCOL.md. On connect the
/// peer gets the effective clientConfig; chunkSaved events are pushed to every peer. The
/// upgrade needs the access token (header or `?token=`); a session opened with a token
/// that is later rotated is closed.
struct WebSocketEndpoint {
    let services: NodeServices

    func makeRouter() -> Router<NodeWebSocketContext> {
        let router = Router(context: NodeWebSocketContext.self)
        let policy = services.access
        let refusals = services.upgradeRefusals
        for path in ["/", "/ws"] {
            router.ws(RouterPath(path), shouldUpgrade: { request, context in
                let offered = AccessPolicy.offeredToken(
                    authorization: request.headers[.authorization], query: request.uri.queryParameters.get("token"))
                let address = AccessPolicy.clientAddress(context.remoteAddress)
                switch policy.decide(offered: offered, scope: .api, address: address) {
                case .allowed:
                    return .upgrade([:])
                case .unauthorized:
                    // Noted for UpgradeRefusalWriter: the library answers a refused upgrade 400.
                    let message = "a valid token is needed"
                    refusals.note(.init(status: "401 Unauthorized", message: message, extraHeaders: ""), for: context.channel)
                    throw HTTPError(.unauthorized, message: message)
                case .throttled(let seconds):
                    let message = "too many failed attempts; try again in \(seconds) s"
                    refusals.note(.init(status: "429 Too Many Requests", message: message, extraHeaders: "Retry-After: \(seconds)\r\n"), for: context.channel)
                    throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(seconds)], message: message)
                }
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
        let offered = AccessPolicy.offeredToken(
            authorization: context.request.headers[.authorization], query: context.request.uri.queryParameters.get("token"))
        // Rotated between the upgrade check and now: the session ends before it starts.
        guard let generation = services.access.generation(ifCurrent: offered) else { return }
        guard let id = peers.admit(address: address, outbox: outbox, tokenGeneration: generation, maximum: WebSocketPeerLimit.maximum) else {
            services.refusals.count(.webSocketPeerLimit)
            context.logger.notice("WebSocket peer from \(address) refused: \(WebSocketPeerLimit.maximum) peers connected (WebSocket peer limit)")
            try await outbound.writeTextMessage(
                ProtocolMessage.status(false, WebSocketPeerLimit.refusal, extra: ["limit": .number(Double(WebSocketPeerLimit.maximum))]))
            try await outbound.close(WebSocketPeerLimit.closeCode, reason: "WebSocket peer limit \(WebSocketPeerLimit.maximum)")
            return
        }
        defer { peers.remove(id) }
        context.logger.info("WebSocket peer connected from \(address)")
        var session = services.session(role: .server, logger: context.logger)
        // Without it a file's pieces queue on the loop faster than a slow peer takes them: a
        // 290 MiB upload grew RSS by 77 MiB on a loaded box.
        session.eventLoop = context.requestContext.eventLoop
        session.onClientInfo = { name in peers.rename(id, to: name) }
        try await session.run(inbound: inbound, outbound: outbound, outbox: outbox)
        context.logger.info("WebSocket peer \(address) disconnected")
    }
}
