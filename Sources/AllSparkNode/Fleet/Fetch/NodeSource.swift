import AsyncHTTPClient
import Foundation
import NIOCore

/// A live node as a source of chunks: its `/api/chunks` listing of a range, its files
/// (resumable with Range), and its `/api/clip`. Every answer is checked: a node that
/// answers something other than what the API promises is an error that says so.
struct NodeSource: Sendable {
    let url: String
    let token: String?
    let http: FleetHTTP

    /// One chunk as the node lists it; `source` is `ring`, or `archive` for one only its bucket holds.
    struct Listed: Sendable, Decodable {
        let file: String
        let timestampsFile: String
        let startMs: Int64
        let endMs: Int64
        let frames: Int
        let bytes: Int64
        let timestampsBytes: Int64
        let source: String?
    }

    struct Listing: Decodable {
        let chunks: [Listed]
        /// Set when the node could not list its archive: its listing lacks what only the bucket holds.
        let archiveError: String?
    }

    struct Refused: Error, CustomStringConvertible {
        let description: String
        /// The node answered (an HTTP status): it is up, only this request failed.
        let answered: Bool
    }

    func list(startMs: Int64, endMs: Int64) async throws -> Listing {
        let query = Self.rangeQuery(startMs: startMs, endMs: endMs)
        let (status, body) = try await http.getSmall("\(url)/api/chunks?\(query)", token: token)
        guard status == 200 else { throw Self.refusal("/api/chunks", status: status, body: body) }
        guard let listing = try? JSONDecoder().decode(Listing.self, from: Data(body.readableBytesView)) else {
            throw Refused(description: "\(url)/api/chunks answered something that is not a chunk list", answered: false)
        }
        let malformed = listing.chunks.first { !ChunkFileName.isPlain($0.file) || !ChunkFileName.isPlain($0.timestampsFile) || $0.bytes < 0 }
        if let malformed { throw Refused(description: "\(url)/api/chunks listed a file name that is not a chunk's: \(malformed.file)", answered: false) }
        return listing
    }

    /// Reads one file from `offset` on.
    func open(_ file: String, size: Int64, offset: Int64) async throws -> (body: HTTPClientResponse.Body, resumed: Bool) {
        let headers = offset > 0 ? [("range", "bytes=\(offset)-")] : []
        let response = try await http.get(
            "\(url)/api/chunks/\(file)", token: token, headers: headers, timeout: FleetHTTP.timeout(forBytes: size, base: http.timeouts.file))
        switch response.status.code {
        case 206: return (response.body, true)
        case 200: return (response.body, false)
        default:
            let body = (try? await response.body.collect(upTo: 64 * 1024)) ?? ByteBuffer()
            throw Self.refusal("/api/chunks/\(file)", status: Int(response.status.code), body: body)
        }
    }

    /// The node's clip of the range, as one MP4.
    func openClip(startMs: Int64, endMs: Int64) async throws -> HTTPClientResponse {
        let query = Self.rangeQuery(startMs: startMs, endMs: endMs)
        let response = try await http.get("\(url)/api/clip?\(query)", token: token, timeout: .minutes(30))
        guard response.status == .ok else {
            let body = (try? await response.body.collect(upTo: 64 * 1024)) ?? ByteBuffer()
            throw Self.refusal("/api/clip", status: Int(response.status.code), body: body)
        }
        return response
    }

    /// The API takes epoch seconds; milliseconds are kept as decimals.
    private static func rangeQuery(startMs: Int64, endMs: Int64) -> String {
        "start=\(startMs / 1000).\(String(format: "%03lld", startMs % 1000))&end=\(endMs / 1000).\(String(format: "%03lld", endMs % 1000))"
    }

    private static func refusal(_ path: String, status: Int, body: ByteBuffer) -> Refused {
        let text = String(buffer: body).prefix(300)
        let hint = status == 401 ? " (the token was refused: --token or --tokens)" : ""
        return Refused(description: "\(path) answered \(status)\(hint): \(text)", answered: true)
    }
}

/// Names the fleet writes to disk come from other machines: only plain names are used.
enum ChunkFileName {
    static func isPlain(_ name: String) -> Bool {
        switch ChunkNaming.classify(name) {
        case .chunk, .timestamps: return !name.contains("/") && !name.hasPrefix(".")
        default: return false
        }
    }
}
