import Hummingbird
import Logging
import NIOCore

/// Every error the HTTP API answers has one body, `{"status":"error","message":...}` with
/// a route's own extras (`JSONResponse.error`; the OpenAPI document's `Error` schema).
/// Handlers return theirs; this turns what is thrown into the same: Hummingbird's
/// `HTTPError` (an unknown path or method, a request body over a route's limit, a bad
/// parameter), whose own body would be `{"error":{"message":...}}` or empty, keeping its
/// headers; anything else is a 500 naming the error, and logged.
struct ErrorBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
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
        case .methodNotAllowed: "\(request.method) is not allowed on \(request.uri.path)"
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
