import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird

/// GET /api/chunks?start=&end= (epoch seconds; `clock=edge` for the edge server's clock) and
/// GET /api/chunks/{filename}. A listing with an `end` inside the chunk being recorded ends
/// that chunk early, so the newest footage is listed (and can be fetched) at once.
/// Only names that are in the store's index are served: the name is looked up, never
/// joined to a path as given, so no request can reach a file outside the store.
struct ChunkRoutes {
    let services: NodeServices

    func register(on router: Router<NodeRequestContext>) {
        router.get("/api/chunks") { request, _ in
            let query = request.uri.queryParameters
            do {
                let askedStart = try Self.epochMs(query.get("start"), name: "start")
                let askedEnd = try Self.epochMs(query.get("end"), name: "end")
                guard (askedStart ?? 0) <= (askedEnd ?? .max) else { return JSONResponse.error("start is after end", status: .badRequest) }
                var startMs = askedStart ?? 0
                var endMs = askedEnd ?? .max
                var answer: [String: JSONValue] = ["clock": .string("node")]
                var offsetMs: Int64 = 0
                switch query.get("clock") ?? "node" {
                case "node":
                    break
                case "edge":
                    guard let estimate = services.uplinkState.current.edgeClock else {
                        return JSONResponse.error("no edge server clock measured yet (the uplink measures it while connected)", status: .conflict)
                    }
                    let node = estimate.nodeRange(edgeStartMs: startMs, edgeEndMs: min(endMs, Int64(UploadTimeRange.latestSeconds * 1000)))
                    startMs = askedStart == nil ? 0 : node.startMs
                    endMs = askedEnd == nil ? .max : node.endMs
                    offsetMs = Int64(node.offsetMs.rounded())
                    answer["clock"] = .string("edge")
                    answer["offsetMs"] = .number(node.offsetMs)
                    answer["uncertaintyMs"] = .number(estimate.uncertaintyMs)
                case let other:
                    return JSONResponse.error("clock must be node or edge, got \(other)", status: .badRequest)
                }
                if askedEnd != nil {
                    let cut = await services.recorder.publishFootage(throughMs: min(endMs, WallClock.nowMs()))
                    answer["cutEarly"] = .array(cut.map { .string($0) })
                }
                let rangeEndMs = endMs == startMs ? endMs + 1 : endMs
                let chunks = services.store.chunks(overlappingStartMs: startMs, endMs: rangeEndMs)
                var listed = chunks.map { (record: $0, source: "ring") }
                // The archive is listed only for a range: all of it could be months of chunks.
                if let archive = services.archive, askedStart != nil || askedEnd != nil {
                    do {
                        let archived = try await archive.catalog.chunks(overlappingStartMs: startMs, endMs: rangeEndMs, notHeldBy: services.store)
                        listed = (listed + archived.map { (record: $0.record, source: "archive") }).sorted { $0.record.startMs < $1.record.startMs }
                    } catch {
                        answer["archiveError"] = .string("\(error)")
                    }
                }
                answer["count"] = .number(Double(listed.count))
                let holdIDs = services.store.holdIDs(of: chunks)
                answer["chunks"] = .array(listed.map { $0.record.json(offsetMs: offsetMs, source: $0.source, holds: $0.source == "ring" ? holdIDs[$0.record.stamp] ?? [] : nil) })
                return JSONResponse.make(.object(answer))
            } catch let error as APIError {
                return JSONResponse.error(error.message, status: .badRequest)
            }
        }
        router.get("/api/chunks/:filename") { request, context in
            let name = try context.parameters.require("filename")
            guard Self.isPlainFileName(name) else {
                return JSONResponse.error("invalid file name", status: .badRequest)
            }
            guard let (chunk, isTimestamps) = services.store.allChunks.lazy.compactMap({ chunk -> (ChunkRecord, Bool)? in
                chunk.fileName == name ? (chunk, false) : chunk.timestampsFileName == name ? (chunk, true) : nil
            }).first else {
                return try await archivedFile(name)
            }
            let path = services.store.directory.appendingPathComponent(name).path
            if let problem = services.store.availabilityProblem(), access(path, R_OK) != 0 {
                return JSONResponse.error("\(problem); \(name) stays listed and is served again when the store is back", status: .serviceUnavailable)
            }
            guard access(path, R_OK) == 0 else {
                return JSONResponse.error("\(name) is listed but its file is gone from the store", status: .notFound)
            }
            let size = Int(isTimestamps ? chunk.timestampsBytes : chunk.chunkBytes)
            return try await Self.serveFile(path: path, size: size, contentType: ProtocolMessage.mimeType(forFileName: name), request: request, context: context)
        }
    }

    /// A file the ring no longer holds, streamed from the archive as the bucket sends it.
    private func archivedFile(_ name: String) async throws -> Response {
        guard let archive = services.archive else {
            return JSONResponse.error("no such chunk file in the store", status: .notFound)
        }
        let manifest: ArchiveManifest
        let object: HTTPClientResponse
        do {
            guard let found = try await archive.catalog.manifest(forFile: name) else {
                return JSONResponse.error("no such chunk file in the store or the archive", status: .notFound)
            }
            manifest = found
            object = try await archive.catalog.open(name)
        } catch {
            return JSONResponse.error("the archive could not be read: \(error)", status: .badGateway)
        }
        var headers = HTTPFields()
        headers[.contentType] = ProtocolMessage.mimeType(forFileName: name)
        headers[.contentLength] = String(name == manifest.chunkFile ? manifest.chunkBytes : manifest.timestampsBytes)
        headers[HTTPField.Name("X-AllSpark-Source")!] = "archive"
        return Response(status: .ok, headers: headers, body: ResponseBody(asyncSequence: object.body))
    }

    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 128 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) }
    }

    struct APIError: Error { let message: String }

    static func epochMs(_ text: String?, name: String) throws -> Int64? {
        guard let text else { return nil }
        return try epochMs(seconds: Double(text), name: name, given: text)
    }

    /// Epoch seconds from a JSON number, checked as a query's are (an unchecked one far out
    /// of range would trap converting to Int64).
    static func epochMs(seconds: Double?, name: String, given: String? = nil) throws -> Int64 {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds <= UploadTimeRange.latestSeconds else {
            throw APIError(message: "\(name) must be epoch seconds in 0...\(Int(UploadTimeRange.latestSeconds)), got \(given ?? seconds.map { "\($0)" } ?? "nothing")")
        }
        return Int64((seconds * 1000).rounded())
    }

    /// Serves a file with HTTP Range support (one range), streaming it from disk.
    static func serveFile(path: String, size: Int, contentType: String, request: Request, context: NodeRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.acceptRanges] = "bytes"
        switch ByteRange.parse(request.headers[.range], fileSize: size) {
        case .unsatisfiable:
            var response = JSONResponse.error("the range is outside the file's \(size) bytes", status: .rangeNotSatisfiable)
            response.headers[.contentRange] = "bytes */\(size)"
            return response
        case .whole:
            headers[.contentLength] = String(size)
            let body = try await FileIO().loadFile(path: path, context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            headers[.contentRange] = "bytes \(range.first)-\(range.last)/\(size)"
            headers[.contentLength] = String(range.last - range.first + 1)
            let body = try await FileIO().loadFile(path: path, range: range.first...range.last, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }
}
