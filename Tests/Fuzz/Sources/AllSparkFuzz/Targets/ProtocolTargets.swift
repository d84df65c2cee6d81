import Foundation
import WSCore
@testable import AllSparkNode

/// What peers and the edge server send over the WebSocket.
enum ProtocolTargets {
    /// Every JSON text from outside goes through this parser first; what it accepts must
    /// render to text it reads back the same.
    static let jsonValue = FuzzTarget(name: "json-value", parses: "JSON texts (WebSocket messages, API bodies)") { bytes in
        guard let value = JSONValue.parse(FuzzInput.text(bytes)) else { return }
        precondition(JSONValue.parse(value.rendered()) == value, "a JSON value that does not read back as rendered")
    }

    /// One message into a conversation in either role, as the reader hands it on: the first
    /// byte picks the role and whether the message came as text or binary.
    static let webSocketMessage = FuzzTarget(name: "websocket-message", parses: "WebSocket messages: uploadTimeRange, clientConfig, clientInfo, answers") { bytes in
        guard let selector = bytes.first else { return }
        let session = selector & 1 == 0 ? FuzzProtocolSessions.server : FuzzProtocolSessions.uplink
        let body = Array(bytes.dropFirst())
        let message: WebSocketMessage = selector & 2 == 0 ? .text(FuzzInput.text(body)) : .binary(.init(bytes: body))
        session.handle(message, outbox: Outbox())
    }
}

/// Sessions over an empty store of their own, made once per process.
enum FuzzProtocolSessions {
    static let store: ChunkStore = {
        let directory = FuzzScratch.directory + "/store"
        return try! ChunkStore(directory: directory, capBytes: 64 << 20, logger: FuzzLogging.silent)
    }()
    static let live = LiveConfiguration(config: NodeConfig(), recorder: nil, logger: FuzzLogging.silent)

    static func session(_ role: ProtocolSession.Role) -> ProtocolSession {
        ProtocolSession(
            role: role, live: live, store: store, uploader: FileUploader(counters: UploadCounters()), logger: FuzzLogging.silent,
            publishFootage: { _ in [] })
    }

    static let server = session(.server)
    static let uplink = session(.uplink)
}
