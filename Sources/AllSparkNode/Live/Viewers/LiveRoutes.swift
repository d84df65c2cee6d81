import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The live video's HTTP side, all under /live/ (token as for the API, or `?token=`):
/// `stream.mp4` (one endless fMP4 response for the dashboard's MSE player), and LL-HLS:
/// `index.m3u8` (with blocking reloads), `init-<session>.mp4`, `part-<n>.mp4`,
/// `seg-<msn>.mp4`.
struct LiveRoutes {
    let live: LiveVideo
    /// RFC 3986's unreserved characters: everything else in a token is percent-encoded.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// How long a blocking playlist reload or a preload-hinted part may wait.
    var blockingLimit: Duration { .seconds(3 * live.playlist.targetDurationSeconds) }

    func register(on router: Router<NodeRequestContext>) {
        router.get("/live/stream.mp4") { _, context in try await stream(on: context.channel) }
        router.get("/live/:file") { request, context in
            let file = context.parameters.get("file") ?? ""
            // Players keep their connection open between requests: one connection, one viewer.
            let connection = context.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "unknown"
            let counters = live.counters.of(.hls)
            counters.viewers.store(live.hlsViewers.saw(connection), ordering: .relaxed)
            let response = try await hls(file: file, request: request)
            if case .some(let length) = response.headers[.contentLength].flatMap(Int.init) {
                counters.bytesSent.add(length, ordering: .relaxed)
            }
            return response
        }
    }

    private func stream(on channel: any Channel) async throws -> Response {
        guard let session = live.feed.session else {
            return JSONResponse.error("no live video yet: the recorder has not encoded a frame", status: .serviceUnavailable)
        }
        // The kernel would otherwise queue up to 4 MiB (tcp_wmem) for a stalled viewer: seconds
        // of stale video, and a viewer that never learns it fell behind.
        try await channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: LiveStreamViewer.socketBufferBytes).get()
        let viewer = LiveStreamViewer(
            feed: live.feed, counters: live.counters.of(.mse), maximumLagMs: LiveVideo.maximumLagMs, channel: channel)
        guard let first = await viewer.join(timeout: .seconds(10)) else {
            return JSONResponse.error("no keyframe within 10 s: the recorder is not encoding", status: .serviceUnavailable)
        }
        var headers = HTTPFields()
        headers[.contentType] = "video/mp4; codecs=\"\(session.codecs)\""
        headers[.cacheControl] = "no-store"
        // Media time 0 of what follows is this frame's capture time: the player's lag behind live.
        headers[HTTPField.Name("X-Live-Start-Capture-Ms")!] = String(first.captureMs)
        headers[HTTPField.Name("X-Live-Codecs")!] = session.codecs
        let initialization = session.initializationSegment
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await viewer.stream(from: first, initializationSegment: initialization, to: &writer)
                try await writer.finish(nil)
            })
    }

    private func hls(file: String, request: Request) async throws -> Response {
        let playlist = live.playlist
        let token = request.uri.queryParameters.get("token")
        let query = token.map { "?token=" + ($0.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "") } ?? ""
        if file == "index.m3u8" {
            if let position = try blockingPosition(request) {
                switch playlist.availability(of: position) {
                case .tooFarAhead:
                    return JSONResponse.error("_HLS_msn is more than two segments ahead", status: .badRequest)
                case .waiting:
                    guard await waitFor({ playlist.availability(of: position) == .ready }, updates: playlist.updates) else {
                        return JSONResponse.error("the requested part did not appear in time", status: .serviceUnavailable)
                    }
                case .ready:
                    break
                }
            }
            guard let text = playlist.render(query: query) else {
                return JSONResponse.error("no live video yet", status: .serviceUnavailable)
            }
            return media(ByteBuffer(string: text), type: "application/vnd.apple.mpegurl")
        }
        if file.hasPrefix("init-"), let session = playlist.session, file == "init-\(session.parameters.session).mp4" {
            return media(session.initializationSegment, type: "video/mp4")
        }
        let numbers = file.dropLast(".mp4".count).split(separator: "-").dropFirst().compactMap { Int($0) }
        if file.hasPrefix("part-"), file.hasSuffix(".mp4"), numbers.count == 1 {
            var lookup = playlist.part(numbers[0])
            if case .upcoming = lookup {
                _ = await waitFor(
                    {
                        if case .upcoming = playlist.part(numbers[0]) { return false }
                        return true
                    }, updates: playlist.updates)
                lookup = playlist.part(numbers[0])
            }
            if case .found(let fragments) = lookup { return media(ResponseBody(contentsOf: fragments), type: "video/mp4") }
        }
        if file.hasPrefix("seg-"), file.hasSuffix(".mp4"), numbers.count == 1, let fragments = playlist.segment(numbers[0]) {
            return media(ResponseBody(contentsOf: fragments), type: "video/mp4")
        }
        return JSONResponse.error("no such live file (it may have left the window)", status: .notFound)
    }

    /// `_HLS_msn` and `_HLS_part` of a blocking playlist reload, nil for a plain request.
    private func blockingPosition(_ request: Request) throws -> LiveHLSPlaylist.Position? {
        let query = request.uri.queryParameters
        guard let msnText = query.get("_HLS_msn") else {
            if query.get("_HLS_part") != nil { throw HTTPError(.badRequest, message: "_HLS_part needs _HLS_msn") }
            return nil
        }
        guard let msn = Int(msnText), msn >= 0 else { throw HTTPError(.badRequest, message: "_HLS_msn must be a whole number") }
        let part = try query.get("_HLS_part").map { text in
            guard let part = Int(text), part >= 0 else { throw HTTPError(.badRequest, message: "_HLS_part must be a whole number") }
            return part
        }
        return LiveHLSPlaylist.Position(segment: msn, part: part)
    }

    private func waitFor(_ condition: () -> Bool, updates: LiveUpdateSignal) async -> Bool {
        let deadline = ContinuousClock.now + blockingLimit
        while !Task.isCancelled {
            let seen = updates.version
            if condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            _ = await updates.wait(after: seen, timeout: deadline - ContinuousClock.now)
        }
        return false
    }

    private func media(_ bytes: ByteBuffer, type: String) -> Response {
        media(ResponseBody(byteBuffer: bytes), type: type)
    }

    /// A part or segment goes out as its fragments, written one after another (no copy).
    private func media(_ body: ResponseBody, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        if let length = body.contentLength { headers[.contentLength] = String(length) }
        headers[.cacheControl] = type.hasSuffix("mpegurl") ? "no-cache" : "max-age=60"
        return Response(status: .ok, headers: headers, body: body)
    }
}
