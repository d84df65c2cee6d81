import Foundation
import Hummingbird
import Logging
import NIOCore

/// The Fleet page's API: `GET /api/fleet` (every node, as `fleet list --json`),
/// `POST /api/fleet/exports` (`{"start": s, "end": s, "nodes": [..]}`, epoch seconds; starts
/// the same fetch as `fleet fetch`), `GET /api/fleet/exports/{id}` (its progress, then its
/// manifest), `GET /api/fleet/exports/{id}/zip`, and `POST /api/fleet/holds` (a hold's
/// `{"start", "end", "reason", "expires"?, "nodes"?}`; the same as `fleet hold`).
struct FleetRoutes {
    let services: NodeServices
    let exports: FleetExports
    let logger: Logger

    init(services: NodeServices, logger: Logger) {
        self.services = services
        self.logger = logger
        exports = FleetExports(storeDirectory: services.store.directory, settings: services.live.config.archive, logger: logger)
    }

    private struct ExportRequest: Decodable {
        let start: Double
        let end: Double
        let nodes: [String]?
    }

    func register(on router: Router<NodeRequestContext>) {
        router.get("/api/fleet") { _, _ in
            try Self.encode(await exports.discover())
        }
        router.post("/api/fleet/exports") { request, _ in
            let body = try await request.collectBody(limit: 64 * 1024)
            guard let asked = try? JSONDecoder().decode(ExportRequest.self, from: Data(body.readableBytesView)) else {
                return JSONResponse.error("expected {\"start\": epoch seconds, \"end\": epoch seconds, \"nodes\": [names] or absent}", status: .badRequest)
            }
            let startMs: Int64
            let endMs: Int64
            do {
                startMs = try ChunkRoutes.epochMs(seconds: asked.start, name: "start")
                endMs = try ChunkRoutes.epochMs(seconds: asked.end, name: "end")
            } catch let error as ChunkRoutes.APIError {
                return JSONResponse.error(error.message, status: .badRequest)
            }
            guard startMs < endMs else { return JSONResponse.error("start must be before end (the range is backwards or empty)", status: .badRequest) }
            return try await withFleetTokens(request) { tokens in
                try Self.encode(await exports.start(startMs: startMs, endMs: endMs, nodes: asked.nodes, tokens: tokens), status: .accepted)
            }
        }
        router.post("/api/fleet/holds") { request, _ in
            let body = String(buffer: try await request.collectBody(limit: 64 * 1024))
            let holdRequest: HoldRequest
            do throws(HoldError) {
                let asked = try HoldRoutes.request(from: body)
                holdRequest = try HoldRequest(startMs: asked.startMs, endMs: asked.endMs, reason: asked.reason, expiresMs: asked.expiresMs, id: Hold.newID())
            } catch {
                return HoldRoutes.response(for: error)
            }
            let names = JSONValue.parse(body)?["nodes"]?.array?.compactMap(\.string)
            return try await withFleetTokens(request) { tokens in
                let report = try await FleetClients(settings: services.live.config.archive).with { http, bucket in
                    let found = await FleetDiscovery(http: http, bucket: bucket, logger: logger).discover()
                    let selected = try FleetFetcher.select(names, from: found.nodes)
                    return await FleetHolder(http: http, bucket: bucket, logger: logger).hold(holdRequest, nodes: selected, tokens: tokens)
                }
                return try Self.encode(report)
            }
        }
        router.get("/api/fleet/exports/:id") { _, context in
            guard let job = exports.job(try context.parameters.require("id")) else {
                return JSONResponse.error("no such export (only the newest \(FleetExports.kept) are kept)", status: .notFound)
            }
            return try Self.encode(job)
        }
        router.get("/api/fleet/exports/:id/zip") { request, context in
            let id = try context.parameters.require("id")
            guard let job = exports.job(id), job.state == .done, let size = job.zipBytes else {
                return JSONResponse.error("no finished export \(id)", status: .notFound)
            }
            var response = try await ChunkRoutes.serveFile(
                path: exports.zipPath(id).path, size: Int(size), contentType: "application/zip", request: request, context: context)
            response.headers[.contentDisposition] = "attachment; filename=\"fleet-\(job.startMs / 1000)-\(job.endMs / 1000).zip\""
            return response
        }
    }

    /// The tokens for other nodes: the file `fleet.tokensFile` names, and, only with
    /// `fleet.shareToken`, the token this request came with for every node the file does not
    /// name. A node record or mDNS announcement can name any address, so the page's token
    /// is not handed to whatever answers there unless the owner says the fleet shares it.
    private func fleetTokens(_ request: Request) throws -> FleetTokens {
        let config = services.live.config
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        var tokens = FleetTokens(shared: config.fleetShareToken ? bearer : nil)
        let file = config.fleetTokensFile
        if !file.isEmpty { tokens.byNode = try FleetTokens.parse(String(contentsOfFile: file, encoding: .utf8), file: file) }
        return tokens
    }

    /// Runs `work` with the tokens for other nodes; a tokens file that cannot be read and
    /// nodes no one knows are answered as errors.
    private func withFleetTokens(_ request: Request, _ work: (FleetTokens) async throws -> Response) async throws -> Response {
        let tokens: FleetTokens
        do {
            tokens = try fleetTokens(request)
        } catch {
            return JSONResponse.error("fleet.tokensFile: \(error)", status: .internalServerError)
        }
        do {
            return try await work(tokens)
        } catch let unknown as FleetFetcher.UnknownNodes {
            return JSONResponse.error(unknown.description, status: .badRequest)
        }
    }

    private static func encode<Value: Encodable>(_ value: Value, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(value))))
    }
}
