import Foundation
import Hummingbird
import NIOCore

/// GET /api/openapi.json: the HTTP API as an OpenAPI 3.1 document, open without the token
/// (it holds no data). The one copy is `docs/reference/openapi.json`; the package installs
/// it beside the dashboard (`InstallLayout.openAPIDocument`). `OpenAPIDocumentTests` holds
/// its operations against the router's routes, both ways.
struct OpenAPIRoutes {
    static let path = "/api/openapi.json"
    let file: String

    func register(on router: Router<NodeRequestContext>) {
        // Read once: the document changes with the binary, not while it runs.
        let document = FileManager.default.contents(atPath: file)
        let missing = "the API document is not installed (looked for \(file))"
        router.get(RouterPath(Self.path)) { _, _ in
            guard let document else { return JSONResponse.error(missing, status: .notFound) }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document)))
        }
    }
}
