/// The JSON text messages of PROTOCOL.md that the node sends, in either role.
public enum ProtocolMessage {
    public static func clientConfig(_ config: JSONValue) -> String {
        JSONValue.object(["type": .string("clientConfig"), "config": config]).rendered()
    }

    public static func clientInfo(name: String) -> String {
        JSONValue.object(["type": .string("clientInfo"), "clientName": .string(name)]).rendered()
    }

    /// Sent after every finished chunk. Times are epoch seconds of the first and last frame,
    /// in the node's clock unless `times` gives them in the receiver's.
    public static func chunkSaved(
        _ chunk: ChunkRecord, fps: Double, width: Int, height: Int, times: (startMs: Int64, endMs: Int64)? = nil
    ) -> String {
        let times = times ?? (chunk.startMs, chunk.endMs)
        return JSONValue.object([
            "type": .string("chunkSaved"),
            "startTime": .number(Double(times.startMs) / 1000),
            "endTime": .number(Double(times.endMs) / 1000),
            "camera": .string("back"),
            "size": .number(Double(chunk.chunkBytes)),
            "format": .string(chunk.format.rawValue),
            "fps": .number(fps),
            "dimensions": .object(["width": .number(Double(width)), "height": .number(Double(height))]),
            "filename": .string(chunk.fileName),
            "frames": .number(Double(chunk.frameCount)),
        ]).rendered()
    }

    /// The metadata half of an upload pair; the file follows as one binary message.
    public static func uploadMetadata(fileName: String, size: Int64, mimeType: String) -> String {
        JSONValue.object([
            "type": .string("upload"),
            "filename": .string(fileName),
            "filesize": .number(Double(size)),
            "mimetype": .string(mimeType),
        ]).rendered()
    }

    public static func status(_ success: Bool, _ message: String, extra: [String: JSONValue] = [:]) -> String {
        var fields = extra
        fields["status"] = .string(success ? "success" : "error")
        fields["message"] = .string(message)
        return JSONValue.object(fields).rendered()
    }

    /// Mimetypes as the edge server expects them.
    public static func mimeType(forFileName name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "mp4": "video/mp4"
        case "mov": "video/quicktime"
        case "txt": "text/plain"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
