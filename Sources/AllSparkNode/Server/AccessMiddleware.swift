import Hummingbird
import NIOCore

/// The request context of the HTTP API: the basic one plus the peer's address, which
/// failed attempts are counted by, and its channel.
struct NodeRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// The connection, for the live stream's per-viewer socket limits.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }
}

/// Guards everything under /api/ but /api/health and /api/openapi.json (the API's own
/// description), /live/, and /metrics, with the access policy.
/// Under /live/ the token may also come as `?token=`: Safari's HLS player cannot add a header.
/// The dashboard's static files stay open: a browser cannot attach a header to a page
/// load, and they hold no data; the page then asks for the token and sends it on every call.
/// A refusal says the same whether the token was missing or wrong.
struct AccessMiddleware<Context: RequestContext & RemoteAddressRequestContext>: RouterMiddleware {
    let policy: AccessPolicy
    /// What anyone may read: the health an orchestrator polls, and the API document.
    static var open: Set<String> { ["/api/health", OpenAPIRoutes.path] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let scope: AccessPolicy.Scope
        if path == "/metrics" {
            scope = .metrics
        } else if (path.hasPrefix("/api/") && !Self.open.contains(path)) || path.hasPrefix("/live/") {
            scope = .api
        } else {
            return try await next(request, context)
        }
        let query = path.hasPrefix("/live/") ? request.uri.queryParameters.get("token") : nil
        let offered = AccessPolicy.offeredToken(authorization: request.headers[.authorization], query: query)
        switch policy.decide(offered: offered, scope: scope, address: AccessPolicy.clientAddress(context.remoteAddress)) {
        case .allowed:
            return try await next(request, context)
        case .unauthorized:
            var response = JSONResponse.error("a valid bearer token is needed", status: .unauthorized)
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        case .throttled(let seconds):
            var response = JSONResponse.error("too many failed attempts from this address; try again in \(seconds) s", status: .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
    }
}
