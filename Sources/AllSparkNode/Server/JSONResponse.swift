import Hummingbird
import NIOCore

/// JSON bodies for the API, built from `JSONValue` so field types are explicit.
enum JSONResponse {
    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value.rendered())))
    }

    static func error(_ message: String, status: HTTPResponse.Status, extra: [String: JSONValue] = [:]) -> Response {
        var fields = extra
        fields["status"] = .string("error")
        fields["message"] = .string(message)
        return make(.object(fields), status: status)
    }

    /// The body of `error(_:status:extra:)`, for answers written below the router.
    static func errorBody(_ message: String, extra: [String: JSONValue] = [:]) -> String {
        var fields = extra
        fields["status"] = .string("error")
        fields["message"] = .string(message)
        return JSONValue.object(fields).rendered()
    }
}

extension ChunkRecord {
    /// A chunk as the API lists it: epoch seconds for the protocol, ms for exactness.
    var json: JSONValue { json(offsetMs: 0) }

    /// The same with its times moved into another clock (`offsetMs` = that clock minus the node's).
    /// - Parameter source: `ring` or `archive`, where the chunk's files are read from; nil leaves it out.
    /// - Parameter holds: ids of the holds that keep the chunk; nil leaves them out.
    func json(offsetMs: Int64, source: String? = nil, holds: [String]? = nil) -> JSONValue {
        let startMs = startMs + offsetMs
        let endMs = endMs + offsetMs
        var fields: [String: JSONValue] = [
            "file": .string(fileName),
            "timestampsFile": .string(timestampsFileName),
            "format": .string(format.rawValue),
            "startTime": .number(Double(startMs) / 1000),
            "endTime": .number(Double(endMs) / 1000),
            "startMs": .number(Double(startMs)),
            "endMs": .number(Double(endMs)),
            "frames": .number(Double(frameCount)),
            "bytes": .number(Double(chunkBytes)),
            "timestampsBytes": .number(Double(timestampsBytes)),
        ]
        if let source { fields["source"] = .string(source) }
        if let holds { fields["holds"] = .array(holds.map { .string($0) }) }
        return .object(fields)
    }
}
