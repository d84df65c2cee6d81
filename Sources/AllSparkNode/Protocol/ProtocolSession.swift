import Foundation
import Logging
import NIOCore
import WSCore

/// One AllSpark WebSocket conversation, in either of the node's two roles:
/// - `.server`: a peer (operator, agent, test) connected to the node's own port;
/// - `.uplink`: the node connected to an edge server, as the iOS app is.
/// A reader handles incoming messages; a single writer drains the outbox, so uploads and
/// pushed events never interleave and recording never waits for a peer.
public struct ProtocolSession: Sendable {
    public enum Role: Sendable { case server, uplink }

    let role: Role
    let live: LiveConfiguration
    let store: ChunkStore
    let uploader: FileUploader
    /// Where ranges beyond the ring are read from, when the node archives.
    let archive: ArchiveCatalog?
    let logger: Logger
    /// Where the messages `MessageRateLimit` holds back are counted (the server role's).
    let refusals: RefusalCounters?
    /// Called with the peer's clientInfo name (server role).
    var onClientInfo: @Sendable (String) -> Void = { _ in }
    /// Called with each command the session accepts, for status pages.
    var onCommand: @Sendable (String) -> Void = { _ in }
    /// The connection's event loop (the server's and the uplink's), to pace uploads by.
    var eventLoop: (any EventLoop)?
    /// Uplink: the edge server's clock, which its ranges are in.
    var timeMapping: EdgeTimeMapping?
    /// Ends the chunk being recorded when a range reaches into it (Recorder.publishFootage).
    let publishFootage: @Sendable (Int64) async -> [String]

    /// Largest message accepted from a peer; commands are small JSON texts.
    static let maximumIncomingMessageBytes = 1 << 20

    init(
        role: Role, live: LiveConfiguration, store: ChunkStore, uploader: FileUploader, archive: ArchiveCatalog? = nil, logger: Logger,
        refusals: RefusalCounters? = nil, publishFootage: @escaping @Sendable (Int64) async -> [String]
    ) {
        self.archive = archive
        self.role = role
        self.publishFootage = publishFootage
        self.live = live
        self.store = store
        self.uploader = uploader
        self.logger = logger
        self.refusals = refusals
    }

    /// Runs until the peer disconnects. `outbox` may already hold greeting messages.
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, outbox: Outbox) async throws {
        let acknowledgements = role == .uplink ? UploadAcknowledgements() : nil
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in outbox.items {
                    try await write(item, to: outbound, acknowledgements: acknowledgements)
                }
            }
            group.addTask {
                defer {
                    outbox.close()
                    acknowledgements?.close()
                }
                // The node's own peers are read at `MessageRateLimit`; the edge server (uplink) is not limited.
                var rate = role == .server ? MessageRateLimit() : nil
                var told = false
                for try await message in inbound.messages(maxSize: Self.maximumIncomingMessageBytes) {
                    handle(message, outbox: outbox, acknowledgements: acknowledgements)
                    if let wait = rate?.take(), wait > .zero {
                        refusals?.count(.messageRateLimit)
                        if !told {
                            told = true
                            logger.notice("a WebSocket peer sends faster than \(Int(MessageRateLimit.perSecond)) messages a second; read at that rate")
                            outbox.send(ProtocolMessage.status(false, MessageRateLimit.notice, extra: ["limit": .number(MessageRateLimit.perSecond)]))
                        }
                        try await Task.sleep(for: wait)
                    }
                }
            }
            // Whichever side ends first (peer gone, write failed) ends the conversation.
            try await group.next()
            group.cancelAll()
        }
    }

    private func write(_ item: OutboundItem, to outbound: WebSocketOutboundWriter, acknowledgements: UploadAcknowledgements?) async throws {
        switch item {
        case .text(let text):
            try await outbound.writeTextMessage(text)
        case .upload(let job):
            let report = try await job.run(
                store: store, archive: archive, uploader: uploader, outbound: outbound, acknowledgements: acknowledgements,
                eventLoop: eventLoop, publishFootage: publishFootage)
            logger.info("\(report.summary(job: job))")
            // The edge server expects no final status; the node's own peers get one.
            if role == .server {
                try await outbound.writeTextMessage(report.statusMessage(job: job))
            }
        }
    }

    func handle(_ message: WebSocketMessage, outbox: Outbox, acknowledgements: UploadAcknowledgements? = nil) {
        switch message {
        case .binary:
            if role == .server { outbox.send(ProtocolMessage.status(false, "Unexpected binary message: the node accepts JSON text only")) }
        case .text(let text):
            guard let json = JSONValue.parse(text) else {
                logger.warning("ignored a malformed message: \(text.prefix(200))")
                outbox.send(ProtocolMessage.status(false, ProtocolError.invalidJSON.description))
                return
            }
            guard json.object != nil else {
                logger.warning("ignored a message that is not a JSON object: \(text.prefix(200))")
                outbox.send(ProtocolMessage.status(false, ProtocolError.notAnObject.description))
                return
            }
            if let command = json["command"] {
                handleCommand(command.string ?? command.rendered(), json, outbox: outbox)
            } else if let type = json["type"]?.string {
                handleTyped(type, json, outbox: outbox)
            } else if json["status"] != nil {
                logger.debug("peer status: \(text.prefix(200))")
                if let message = json["message"]?.string, Self.isUploadAnswer(message) { acknowledgements?.received() }
            } else if role == .server {
                outbox.send(ProtocolMessage.status(false, ProtocolError.unknownMessage("no type or command").description))
            }
        }
    }

    /// The edge server's answers to a binary message (PROTOCOL.md), as opposed to its chunkSaved receipts.
    static func isUploadAnswer(_ message: String) -> Bool {
        message == "Video uploaded successfully" || message == "Metadata not received yet" || message.hasPrefix("Failed to write")
    }

    private func handleCommand(_ command: String, _ json: JSONValue, outbox: Outbox) {
        onCommand(command)
        guard command == "uploadTimeRange" else {
            logger.notice("ignored unknown command \(command)")
            if role == .server {
                outbox.send(ProtocolMessage.status(false, "Unknown command: \(command)", extra: ["command": .string(command)]))
            }
            return
        }
        let range: UploadTimeRange
        do {
            range = try UploadTimeRange(command: json)
        } catch {
            logger.warning("refused uploadTimeRange: \(error)")
            outbox.send(ProtocolMessage.status(false, error.description, extra: ["command": .string(command)]))
            return
        }
        let mapped = timeMapping?.nodeRange(for: range)
        let nodeRange = mapped?.range ?? range
        let chunks = nodeRange.chunks(in: store)
        store.pin(chunks.map(\.stamp))
        let clock = mapped?.offsetAppliedMs.map { " (edge time; node \(nodeRange.startMs)...\(nodeRange.endMs) ms, offset \($0.formatted1) ms)" } ?? ""
        logger.info("uploadTimeRange \(range.startMs)...\(range.endMs) ms\(clock): \(chunks.count) chunks stored")
        outbox.send(UploadJob(askedRange: range, mapped: mapped, chunks: chunks))
    }

    private func handleTyped(_ type: String, _ json: JSONValue, outbox: Outbox) {
        switch type {
        case "clientConfig":
            applyClientConfig(json["config"], outbox: outbox)
        case "clientInfo" where role == .server:
            onClientInfo(json["clientName"]?.string ?? "unnamed")
        default:
            logger.notice("ignored message type \(type)")
            if role == .server { outbox.send(ProtocolMessage.status(false, ProtocolError.unknownMessage(type).description)) }
        }
    }

    private func applyClientConfig(_ config: JSONValue?, outbox: Outbox) {
        guard let object = config?.object else {
            logger.warning("refused clientConfig without a config object")
            guard role == .server else { return }
            outbox.send(ProtocolMessage.status(false, "clientConfig needs a config object", extra: ["key": .string("config")]))
            return
        }
        do {
            let outcome = try live.apply(json: object)
            // The edge server expects no answer to its clientConfig; the node's own peers get one.
            if role == .server {
                outbox.send(ProtocolMessage.status(true, "Config applied", extra: [
                    "config": live.clientConfig,
                    "applied": .array(outcome.applied.map { .string($0) }),
                    "ignored": .array((outcome.notChangeableWhileRunning + outcome.unknown).map { .string($0) }),
                ]))
            }
        } catch let error as ConfigError {
            logger.warning("refused clientConfig: \(error)")
            if role == .server { outbox.send(ProtocolMessage.status(false, error.description, extra: ["key": .string(error.key ?? "")])) }
        } catch {
            logger.error("clientConfig failed: \(error)")
        }
    }
}
