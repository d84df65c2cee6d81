import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Every error the HTTP API answers has one body, `{"status":"error","message":...}` with
/// a route's own extras (`JSONResponse.error`; the OpenAPI document's `Error` schema).
/// Handlers return theirs; this turns what is thrown into the same: Hummingbird's
/// `HTTPError` (an unknown path or method, a request body over a route's limit, a bad
/// parameter), whose own body would be `{"error":{"message":...}}` or empty, keeping its
/// headers; anything else is a 500 naming the error, and logged. A path that has routes,
/// asked with another method, is a 405 with `Allow` rather than Hummingbird's 404.
struct ErrorBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && error.body == nil && routes.lacks(request.method, path: request.uri.path) {
            let allowed = routes.methods(for: request.uri.path)
            var response = JSONResponse.error(
                "\(request.method) is not allowed on \(request.uri.path); it takes \(allowed.joined(separator: ", "))", status: .methodNotAllowed)
            response.headers[.allow] = allowed.joined(separator: ", ")
            return response
        } catch let error as HTTPError where error.status.code >= 400 {
            var response = JSONResponse.error(error.body ?? Self.message(for: error.status, request: request), status: error.status)
            response.headers.append(contentsOf: error.headers.filter { $0.name != .contentType && $0.name != .contentLength })
            return response
        } catch let error as any HTTPResponseError {
            guard error.status.code >= 400 else { throw error }
            return JSONResponse.error("\(error)", status: error.status)
        } catch {
            logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            return JSONResponse.error("the request failed: \(error)", status: .internalServerError)
        }
    }

    static func message(for status: HTTPResponse.Status, request: Request) -> String {
        switch status {
        case .notFound: "no such route or file: \(request.method) \(request.uri.path)"
        default: status.reasonPhrase
        }
    }
}

extension Request {
    /// The whole body, refused with 413 naming `limit` when it is longer.
    func collectBody(limit: Int) async throws -> ByteBuffer {
        do {
            return try await body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "the request body is over \(limit) bytes, this route's limit")
        }
    }
}

/// The router's routes as path templates, filled once they are all registered: which
/// methods a path has.
final class RouteTable: Sendable {
    private let routes = Mutex<[(method: String, segments: [Substring])]>([])

    /// `METHOD /path` lines, as `NodeServer.routeList` gives them (`{name}` for a parameter).
    func set(_ list: [String]) {
        routes.withLock { routes in
            routes = list.compactMap { line in
                let parts = line.split(separator: " ", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), parts[1].split(separator: "/")) : nil
            }
        }
    }

    /// Whether `path` has routes, none of them for `method` (a path the router does not take as
    /// written, such as one with a trailing slash, has routes for its method: a 404).
    func lacks(_ method: HTTPRequest.Method, path: String) -> Bool {
        let methods = methods(for: path)
        return !methods.isEmpty && !methods.contains(method.rawValue)
    }

    func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        return routes.withLock { routes in
            routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { template, given in template.hasPrefix("{") || template == given }
            }.map(\.method)
        }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    }
}
