import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The node as an AllSpark client, in the iOS app's role: it connects to an edge server,
/// sends clientInfo and a chunkSaved after every chunk, applies the server's clientConfig
/// and answers uploadTimeRange. It reconnects every 5 s (with jitter) forever, and runs
/// apart from the recording thread, so a dead server never blocks recording.
public final class Uplink: Service, Sendable {
    private let settings: UplinkSettings
    private let services: NodeServices
    private let findEdgeServer: @Sendable () async throws -> EdgeServerAddress?
    private let logger: Logger
    /// The connected conversation's outbox, for chunkSaved events from the recording thread.
    private let connectedOutbox = CurrentOutbox()

    static let reconnectDelay: Duration = .seconds(5)
    static let maximumIncomingMessageBytes = 1 << 20

    /// - Parameter findEdgeServer: resolves `uplink.url: auto` (mDNS); unused for a fixed URL.
    public init(
        settings: UplinkSettings, services: NodeServices, logger: Logger,
        findEdgeServer: @escaping @Sendable () async throws -> EdgeServerAddress?
    ) {
        self.settings = settings
        self.services = services
        self.findEdgeServer = findEdgeServer
        self.logger = logger
        let outbox = connectedOutbox
        services.recorder.onChunkSaved { record in
            guard let outbox = outbox.outbox else { return }
            let status = services.recorder.status
            outbox.send(ProtocolMessage.chunkSaved(record, fps: services.live.config.fps, width: status.frameWidth, height: status.frameHeight))
        }
    }

    public func run() async throws {
        let name = ClientIdentity.name(configured: settings.name, storeDirectory: services.store.directory)
        services.uplinkState.update { $0.clientName = name }
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.connectOnce(clientName: name)
                } catch is CancellationError {
                    return
                } catch {
                    self.logger.warning("uplink: \(error); reconnecting in about 5 s")
                    self.services.uplinkState.update {
                        $0.phase = .waiting
                        $0.lastError = "\(error)"
                        $0.connectedSinceMs = nil
                    }
                }
                // Jitter keeps a fleet of nodes from reconnecting to a restarted server in lockstep.
                let jitter = Duration.milliseconds(Int.random(in: -1000...1000))
                try await Task.sleep(for: Self.reconnectDelay + jitter)
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func connectOnce(clientName: String) async throws {
        let address: EdgeServerAddress
        if settings.url == "auto" {
            services.uplinkState.update { $0.phase = .discovering }
            guard let found = try await findEdgeServer() else {
                throw Failure(description: "no edge server (_allspark._tcp) found with mDNS")
            }
            address = found
        } else {
            guard let parsed = EdgeServerAddress(url: settings.url) else { throw Failure(description: "invalid uplink.url \(settings.url)") }
            address = parsed
        }
        services.uplinkState.update {
            $0.phase = .connecting
            $0.url = address.webSocketURLs.last
        }
        try await checkHealth(address)
        var lastError: Error?
        for url in address.webSocketURLs {
            do {
                try await converse(url: url, address: address, clientName: clientName)
                return
            } catch let error as ConnectedSessionEnded {
                throw error
            } catch {
                logger.debug("uplink: \(url) failed: \(error)")
                lastError = error
            }
        }
        throw Failure(description: "cannot connect to \(address.host):\(address.port): \(lastError.map { "\($0)" } ?? "no URL")")
    }

    /// PROTOCOL.md: clients may call GET /api/health first as a connection test. Over
    /// https the certificate is not verified, as for wss: LAN edge servers sign their own.
    private func checkHealth(_ address: EdgeServerAddress) async throws {
        var configuration = HTTPClient.Configuration(certificateVerification: .none)
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
        // A refused connection should fail now: the uplink's own loop retries every 5 s.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var answered = false
        for secure in [false, true] where !answered {
            guard let url = address.healthURL(secure: secure) else { continue }
            do {
                let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(5))
                _ = try await response.body.collect(upTo: 1 << 16)
                answered = response.status == .ok
            } catch {
                logger.debug("uplink: GET \(url) failed: \(error)")
            }
        }
        try await client.shutdown()
        guard answered else {
            throw Failure(description: "edge server \(address.host):\(address.port) did not answer GET /api/health")
        }
    }

    /// Thrown when a connection was made and later ended, so the next URL is not tried.
    struct ConnectedSessionEnded: Error, CustomStringConvertible {
        let url: String
        var description: String { "connection to \(url) closed" }
    }

    private func converse(url: String, address: EdgeServerAddress, clientName: String) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        // Edge servers on a LAN use self-signed certificates; wss here encrypts, it does not authenticate.
        tls.certificateVerification = .none
        let isAddress = address.host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: Self.maximumIncomingMessageBytes, sniHostname: isAddress ? "allspark-edge-server" : nil)
        // One loop, known to the session: uploads wait for it to take each piece (FileUploader).
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let connected = Atomic<Bool>(false)
        let services = services
        let logger = logger
        let outboxSlot = connectedOutbox
        do {
            try await WebSocketClient.connect(
                url: url, configuration: configuration, tlsConfiguration: tls, eventLoopGroup: eventLoop, logger: logger
            ) {
                inbound, outbound, _ in
                connected.store(true, ordering: .relaxed)
                let outbox = Outbox()
                outbox.send(ProtocolMessage.clientInfo(name: clientName))
                outboxSlot.set(outbox)
                defer { outboxSlot.set(nil) }
                services.uplinkState.update {
                    $0.phase = .connected
                    $0.url = url
                    $0.connectedSinceMs = WallClock.nowMs()
                    $0.lastError = nil
                }
                logger.notice("uplink: connected to \(url) as \(clientName)")
                var session = services.session(role: .uplink, logger: logger)
                session.eventLoop = eventLoop
                session.onCommand = { command in
                    services.uplinkState.update {
                        $0.lastCommand = command
                        $0.lastCommandAtMs = WallClock.nowMs()
                    }
                }
                try await session.run(inbound: inbound, outbound: outbound, outbox: outbox)
            }
        } catch {
            if connected.load(ordering: .relaxed) { throw ConnectedSessionEnded(url: url) }
            throw error
        }
        guard connected.load(ordering: .relaxed) else { throw Failure(description: "\(url) refused the WebSocket upgrade") }
        throw ConnectedSessionEnded(url: url)
    }
}
