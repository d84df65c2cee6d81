import Hummingbird

/// With a token configured, every API route but /api/health needs `Authorization: Bearer <token>`.
/// The dashboard's static files stay open: a browser cannot attach a header to a page
/// load, and they hold no data; the page then asks for the token and sends it on every call.
struct TokenAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let protected = (path.hasPrefix("/api/") && path != "/api/health") || path == "/metrics"
        guard protected, !token.isEmpty else { return try await next(request, context) }
        guard Self.isAuthorized(request.headers[.authorization], query: nil, token: token) else {
            var response = JSONResponse.error("missing or wrong bearer token", status: .unauthorized)
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        return try await next(request, context)
    }

    /// Compares in constant time, so the token cannot be guessed from response timing.
    static func isAuthorized(_ header: String?, query: String?, token: String) -> Bool {
        let offered: String
        if let header, header.hasPrefix("Bearer ") {
            offered = String(header.dropFirst("Bearer ".count))
        } else if let query {
            offered = query
        } else {
            return false
        }
        let a = Array(offered.utf8)
        let b = Array(token.utf8)
        var difference = a.count ^ b.count
        for index in 0..<min(a.count, b.count) { difference |= Int(a[index] ^ b[index]) }
        return difference == 0
    }
}
