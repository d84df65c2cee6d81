import Foundation
import Testing
@testable import AllSparkNode

/// docs/reference/openapi.json against the node's real router, so the document cannot drift
/// from the routes: every route is documented and every documented operation is routed
/// (Hummingbird's `:name` is OpenAPI's `{name}`); the operations open without the token are
/// exactly those the access check lets through; every error response is the one `Error` shape.
struct OpenAPIDocumentTests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/reference/openapi.json").path
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    struct Operation {
        let key: String
        let body: [String: Any]
    }

    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: documentPath))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `METHOD /path` of every operation in the document.
    static func operations(_ document: [String: Any]) throws -> [Operation] {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        return paths.flatMap { path, item in
            item.compactMap { method, body in
                methods.contains(method) ? Operation(key: "\(method.uppercased()) \(path)", body: body as? [String: Any] ?? [:]) : nil
            }
        }
    }

    /// The router a running node serves, built from a real node's services (test pattern, no
    /// privacy), less ONVIF's SOAP services (docs/reference/onvif.md describes them: SOAP, not JSON).
    static func routes() throws -> [String] {
        try TestNode.withServices("openapi") { services, logger in
            NodeServer.routeList(NodeServer.makeRouter(services: services, logger: logger, openAPIDocument: documentPath))
        }.filter { !$0.contains(" /onvif/") }
    }

    @Test("every route the node registers is documented, and every documented operation is routed")
    func routesMatchTheDocument() throws {
        let routed = Set(try Self.routes())
        let documented = Set(try Self.operations(try Self.document()).map(\.key))
        #expect(routed.count > 20, "the router was built: \(routed.sorted())")
        #expect(routed.subtracting(documented).sorted() == [], "routed but not in docs/reference/openapi.json")
        #expect(documented.subtracting(routed).sorted() == [], "documented but not routed")
    }

    @Test("the operations without a token are exactly those the access check leaves open")
    func openOperations() throws {
        let open = try Self.operations(try Self.document()).filter { ($0.body["security"] as? [Any])?.isEmpty == true }
        #expect(Set(open.map(\.key)) == Set(AccessMiddleware<NodeRequestContext>.open.map { "GET \($0)" }))
        for operation in try Self.operations(try Self.document()) where !open.map(\.key).contains(operation.key) {
            let responses = operation.body["responses"] as? [String: Any] ?? [:]
            #expect(responses["401"] != nil && responses["429"] != nil, "\(operation.key) documents the token's refusals")
        }
    }

    /// Health's 503 is the health report itself (status `error`), which monitors read whole.
    static let notErrors: Set<String> = ["GET /api/health 503"]

    @Test("every 4xx and 5xx response of every operation is the one Error shape, as JSON")
    func errorShape() throws {
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let shared = components["responses"] as? [String: [String: Any]] ?? [:]
        let schemas = components["schemas"] as? [String: [String: Any]] ?? [:]
        func isError(_ schema: [String: Any]) -> Bool {
            if let reference = schema["$ref"] as? String {
                let name = String(reference.split(separator: "/").last ?? "")
                return name == "Error" || schemas[name].map(isError) == true
            }
            return (schema["allOf"] as? [[String: Any]])?.contains(where: isError) == true
        }
        for operation in try Self.operations(document) {
            let responses = try #require(operation.body["responses"] as? [String: [String: Any]])
            for (status, value) in responses where (status.hasPrefix("4") || status.hasPrefix("5")) && !Self.notErrors.contains("\(operation.key) \(status)") {
                var response = value
                if let reference = value["$ref"] as? String { response = shared[String(reference.split(separator: "/").last ?? "")] ?? [:] }
                let content = response["content"] as? [String: [String: Any]] ?? [:]
                #expect(Array(content.keys) == ["application/json"], "\(operation.key) \(status): JSON only")
                let schema = content["application/json"]?["schema"] as? [String: Any] ?? [:]
                #expect(isError(schema), "\(operation.key) \(status): the Error schema")
            }
        }
    }
}
