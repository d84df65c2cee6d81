import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOSSL

/// The node's one port: the HTTP API, the dashboard's files, and the WebSocket (upgrade at
/// `/` or `/ws`), over TLS when a certificate and key are configured.
public enum NodeServer {
    /// Incoming WebSocket frames above this drop the connection; peers send small JSON commands.
    static let maximumIncomingFrameBytes = 1 << 20
    /// How long a closed session waits for the peer's close frame, reading (and dropping)
    /// what it still sends: a peer refused by `WebSocketPeerLimit` that floods on costs 2 s.
    static let webSocketCloseTimeoutSeconds: Int64 = 2

    /// The HTTP API and the dashboard's files: every route the OpenAPI document describes
    /// (`docs/reference/openapi.json`), behind the access check; errors, thrown or returned,
    /// answered as `JSONResponse.error`.
    static func makeRouter(
        services: NodeServices, logger: Logger, openAPIDocument: String = InstallLayout.current.openAPIDocument
    ) -> Router<NodeRequestContext> {
        let router = Router(context: NodeRequestContext.self)
        let routes = RouteTable()
        router.add(middleware: ErrorBodyMiddleware(logger: logger, routes: routes))
        router.add(middleware: AccessMiddleware(policy: services.access))
        OpenAPIRoutes(file: openAPIDocument).register(on: router)
        StatusRoutes(services: services).register(on: router)
        SigningRoutes(services: services).register(on: router)
        ConfigRoutes(services: services).register(on: router)
        ChunkRoutes(services: services).register(on: router)
        HoldRoutes(services: services).register(on: router)
        LiveRoutes(live: services.liveVideo).register(on: router)
        MediaRoutes(services: services, metrics: MetricsExporter(services: services)).register(on: router)
        FleetRoutes(services: services, logger: logger).register(on: router)
        ONVIFRoutes(services: services).register(on: router)
        router.add(middleware: FileMiddleware(services.live.config.server.dashboardDirectory, searchForIndexHtml: true, logger: logger))
        routes.set(routeList(router))
        return router
    }

    /// Every route of `router` as `METHOD /path`, with Hummingbird's `:name` written as OpenAPI's `{name}`.
    static func routeList(_ router: Router<NodeRequestContext>) -> [String] {
        router.routes.map { route in
            let path = route.path.description.split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }.joined(separator: "/")
            return "\(route.method.rawValue) \(path)"
        }.sorted()
    }

    public static func makeApplication(
        services: NodeServices, logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let settings = services.live.config.server
        let router = makeRouter(services: services, logger: logger)

        let webSocketRouter = WebSocketEndpoint(services: services).makeRouter()
        let webSocketConfiguration = WebSocketServerConfiguration(
            maxFrameSize: maximumIncomingFrameBytes, closeTimeout: .seconds(webSocketCloseTimeoutSeconds))
        let plain = GuardedHTTPServer.builder(
            webSocketResponder: webSocketRouter.buildResponder(), webSocket: webSocketConfiguration, limit: services.connections,
            refusals: services.refusals, upgradeRefusals: services.upgradeRefusals)
        let server: HTTPServerBuilder
        if settings.usesTLS {
            let certificates = try NIOSSLCertificate.fromPEMFile(settings.tlsCertificate).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: settings.tlsKey, format: .pem)
            server = try .tls(plain, tlsConfiguration: .makeServerConfiguration(certificateChain: certificates, privateKey: .privateKey(key)))
        } else {
            server = plain
        }
        return Application(
            router: router,
            server: server,
            // The kernel's queue of connections not yet accepted holds as many as the node
            // does (Hummingbird's default is 256): a burst of clients (a fleet reconnecting)
            // is queued, not dropped to wait out SYN retries of 1, 3, 7 and 15 s.
            configuration: .init(
                address: .hostname(settings.host, port: settings.port), serverName: "allspark-node", backlog: ConnectionLimit.defaultMaximum),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? settings.port) },
            logger: logger)
    }
}
