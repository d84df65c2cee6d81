import Foundation
import HTTPTypes
import Hummingbird

/// GET /api/snapshot.jpg (latest masked frame), GET /api/clip?start=&end= (one MP4 of a
/// time range, remuxed), GET /metrics.
struct MediaRoutes {
    let services: NodeServices
    let metrics: MetricsExporter

    func register(on router: Router<NodeRequestContext>) {
        router.get("/api/snapshot.jpg") { _, _ in
            guard let snapshot = try services.snapshots.latestJPEG() else {
                return JSONResponse.error("no frame captured yet", status: .serviceUnavailable)
            }
            var headers = HTTPFields()
            headers[.contentType] = "image/jpeg"
            headers[.cacheControl] = "no-store"
            headers[HTTPField.Name("X-Capture-Time-Ms")!] = String(snapshot.captureTimeMs)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: snapshot.jpeg)))
        }
        router.get("/api/clip") { request, _ in try await clip(request) }
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
    }

    private func clip(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let startMs: Int64
        let endMs: Int64
        do {
            guard let start = try ChunkRoutes.epochMs(query.get("start"), name: "start"),
                let end = try ChunkRoutes.epochMs(query.get("end"), name: "end")
            else { return JSONResponse.error("start and end (epoch seconds) are required", status: .badRequest) }
            (startMs, endMs) = (start, end)
        } catch let error as ChunkRoutes.APIError {
            return JSONResponse.error(error.message, status: .badRequest)
        }
        guard startMs < endMs else { return JSONResponse.error("start must be before end", status: .badRequest) }
        // A range reaching into the chunk being recorded ends it, so the clip has the newest frames.
        _ = await services.recorder.publishFootage(throughMs: min(endMs, WallClock.nowMs()))
        let stored = services.store.chunks(overlappingStartMs: startMs, endMs: endMs)
        var archived: [ArchiveManifest] = []
        if let archive = services.archive {
            do {
                archived = try await archive.catalog.chunks(overlappingStartMs: startMs, endMs: endMs, notHeldBy: services.store)
            } catch {
                return JSONResponse.error("the archive could not be listed: \(error)", status: .badGateway)
            }
        }
        let chunks = (stored + archived.map(\.record)).sorted { $0.startMs < $1.startMs }
        guard !chunks.isEmpty else { return JSONResponse.error("no recording in that range", status: .notFound) }
        let clipDirectory = FileManager.default.temporaryDirectory
        do {
            try ClipBudget.check(chunks, maximumBytes: services.live.config.server.maxClipBytes, clipDirectory: clipDirectory)
        } catch {
            return JSONResponse.error(error.description, status: error.status)
        }
        services.store.pin(stored.map(\.stamp))
        defer { services.store.unpin(stored.map(\.stamp)) }
        // Archived chunks are read back to local files for the remux, and removed after it.
        var fetched: [FetchedChunk] = []
        defer { fetched.forEach { $0.remove() } }
        for manifest in archived {
            do {
                fetched.append(try await services.archive!.catalog.fetch(manifest))
            } catch {
                return JSONResponse.error("\(manifest.chunkFile) could not be read from the archive: \(error)", status: .badGateway)
            }
        }
        let elsewhere = Dictionary(uniqueKeysWithValues: fetched.map { ($0.manifest.chunkFile, $0.chunkPath) })
        let path = clipDirectory.appendingPathComponent("allspark-clip-\(UUID().uuidString).mp4").path
        let summary: ClipExporter.Summary
        let clip: ClipFile
        do {
            summary = try await services.clips.export(
                chunks: chunks, storeDirectory: services.store.directory, elsewhere: elsewhere, startMs: startMs, endMs: endMs, to: path)
            clip = try ClipFile(takingPath: path)
        } catch {
            unlink(path)
            if let problem = services.store.availabilityProblem() {
                return JSONResponse.error("\(problem); the clip can be made again when the store is back", status: .serviceUnavailable)
            }
            return JSONResponse.error("could not make the clip: \(error)", status: .internalServerError)
        }
        var headers = HTTPFields()
        headers[.contentType] = "video/mp4"
        headers[.contentLength] = String(clip.size)
        headers[.contentDisposition] = "attachment; filename=\"clip_\(ChunkNaming.stamp(forMs: summary.firstFrameMs)).mp4\""
        headers[HTTPField.Name("X-Clip-Frames")!] = String(summary.frames)
        if !archived.isEmpty { headers[HTTPField.Name("X-Clip-From-Archive")!] = archived.map(\.chunkFile).joined(separator: ",") }
        let body = ResponseBody { writer in
            var offset: Int64 = 0
            while offset < clip.size {
                let piece = try await clip.piece(at: offset, maximumBytes: Int(FileUploader.pieceBytes))
                offset += Int64(piece.readableBytes)
                try await writer.write(piece)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}

extension ClipBudget.Refusal {
    /// 413 for a range over the limit, 507 when the disk cannot hold the clip now.
    var status: HTTPResponse.Status {
        switch self {
        case .tooLarge: .contentTooLarge
        case .noSpace: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        }
    }
}
