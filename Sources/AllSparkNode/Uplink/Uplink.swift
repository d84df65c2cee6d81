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
/// and answers uploadTimeRange in the server's clock, which it measures while connected
/// (EdgeClockSampler). It reconnects forever with jittered exponential backoff
/// (ReconnectBackoff), apart from the recording thread, so a dead server never blocks recording.
public final class Uplink: Service, Sendable {
    private let settings: UplinkSettings
    private let services: NodeServices
    private let findEdgeServer: @Sendable () async throws -> EdgeServerAddress?
    private let logger: Logger
    /// The connected conversation's outbox, for chunkSaved events from the recording thread.
    private let connectedOutbox = CurrentOutbox()
    /// Clock bursts against the last edge server, kept across reconnections to it.
    private let clockHistory = Mutex<EdgeClockTracker?>(nil)
    /// The edge server's clock applied to the times exchanged with it.
    private let timeMapping: EdgeTimeMapping

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
        let uplinkState = services.uplinkState
        timeMapping = EdgeTimeMapping(live: services.live, estimate: { uplinkState.current.edgeClock })
        let outbox = connectedOutbox
        let timeMapping = timeMapping
        services.recorder.onChunkSaved { record in
            guard let outbox = outbox.outbox else { return }
            let status = services.recorder.status
            outbox.send(ProtocolMessage.chunkSaved(
                record, fps: services.live.config.fps, width: status.frameWidth, height: status.frameHeight,
                times: timeMapping.announcedTimes(of: record)))
        }
    }

    public func run() async throws {
        let name = ClientIdentity.name(configured: settings.name, storeDirectory: services.store.directory)
        services.uplinkState.update { $0.clientName = name }
        try await cancelWhenGracefulShutdown {
            var backoff = ReconnectBackoff()
            while !Task.isCancelled {
                let attemptStarted = ContinuousClock.now
                do {
                    try await self.connectOnce(clientName: name)
                } catch is CancellationError {
                    return
                } catch {
                    // A session that ended because the node is stopping is not a failure.
                    if Task.isCancelled { return }
                    backoff.connectionEnded(after: ContinuousClock.now - attemptStarted)
                    self.services.uplinkState.update {
                        $0.phase = .waiting
                        $0.lastError = "\(error)"
                        $0.connectedSinceMs = nil
                    }
                }
                let delay = backoff.nextDelay()
                let delayMs = delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000
                self.logger.warning("uplink: \(self.services.uplinkState.current.lastError ?? "disconnected"); next attempt in \(delayMs) ms")
                self.services.uplinkState.update {
                    $0.reconnectAttempt = backoff.failures
                    $0.nextAttemptAtMs = WallClock.nowMs() + delayMs
                }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return  // cancelled while waiting: the node is stopping
                }
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
        let healthURL = try await checkHealth(address)
        var lastError: Error?
        for url in address.webSocketURLs {
            do {
                try await converse(url: url, address: address, healthURL: healthURL, clientName: clientName)
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
    /// - Returns: the health URL that answered, for the clock samples.
    private func checkHealth(_ address: EdgeServerAddress) async throws -> URL {
        var configuration = HTTPClient.Configuration(certificateVerification: .none)
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(5))
        // A refused connection should fail now: the uplink's own loop retries with backoff.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var answered: URL?
        for secure in [false, true] where answered == nil {
            guard let url = address.healthURL(secure: secure) else { continue }
            do {
                let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(5))
                _ = try await response.body.collect(upTo: 1 << 16)
                if response.status == .ok { answered = url }
            } catch {
                logger.debug("uplink: GET \(url) failed: \(error)")
            }
        }
        try await client.shutdown()
        guard let answered else {
            throw Failure(description: "edge server \(address.host):\(address.port) did not answer GET /api/health")
        }
        return answered
    }

    /// Thrown when a connection was made and later ended, so the next URL is not tried.
    struct ConnectedSessionEnded: Error, CustomStringConvertible {
        let url: String
        var description: String { "connection to \(url) closed" }
    }

    private func converse(url: String, address: EdgeServerAddress, healthURL: URL, clientName: String) async throws {
        let connected = ConnectionFlag()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await self.talk(url: url, address: address, clientName: clientName, connected: connected)
                }
                group.addTask {
                    while !connected.isSet { try await Task.sleep(for: .milliseconds(50)) }
                    try await self.measureEdgeClock(healthURL: healthURL)
                }
                // The conversation ending ends the measuring, not the other way round.
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch {
            if connected.isSet { throw ConnectedSessionEnded(url: url) }
            throw error
        }
        guard connected.isSet else { throw Failure(description: "\(url) refused the WebSocket upgrade") }
        throw ConnectedSessionEnded(url: url)
    }

    /// Set once the WebSocket upgrade succeeded.
    private final class ConnectionFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    /// One WebSocket conversation, until either side ends it.
    private func talk(url: String, address: EdgeServerAddress, clientName: String, connected: ConnectionFlag) async throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        // Edge servers on a LAN use self-signed certificates; wss here encrypts, it does not authenticate.
        tls.certificateVerification = .none
        let isAddress = address.host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: Self.maximumIncomingMessageBytes, sniHostname: isAddress ? "allspark-edge-server" : nil)
        // One loop, known to the session: uploads wait for it to take each piece (FileUploader).
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let services = services
        let logger = logger
        let outboxSlot = connectedOutbox
        let timeMapping = timeMapping
        try await WebSocketClient.connect(
            url: url, configuration: configuration, tlsConfiguration: tls, eventLoopGroup: eventLoop, logger: logger
        ) {
            inbound, outbound, _ in
            connected.set()
            let outbox = Outbox()
            outbox.send(ProtocolMessage.clientInfo(name: clientName))
            outboxSlot.set(outbox)
            defer { outboxSlot.set(nil) }
            services.uplinkState.update {
                $0.phase = .connected
                $0.url = url
                $0.connectedSinceMs = WallClock.nowMs()
                $0.lastError = nil
                $0.nextAttemptAtMs = nil
            }
            logger.notice("uplink: connected to \(url) as \(clientName)")
            var session = services.session(role: .uplink, logger: logger)
            session.eventLoop = eventLoop
            session.timeMapping = timeMapping
            session.onCommand = { command in
                services.uplinkState.update {
                    $0.lastCommand = command
                    $0.lastCommandAtMs = WallClock.nowMs()
                }
            }
            try await session.run(inbound: inbound, outbound: outbound, outbox: outbox)
        }
    }

    /// Bursts of clock samples against the edge server for as long as the connection lasts.
    /// The history carries over reconnections to the same server, so drift builds up.
    private func measureEdgeClock(healthURL: URL) async throws {
        let sampler = EdgeClockSampler(healthURL: healthURL)
        var tracker = EdgeClockTracker(server: healthURL.absoluteString)
        if let previous = clockHistory.withLock({ $0 }), previous.server == tracker.server { tracker = previous }
        do {
            while !Task.isCancelled {
                if let burst = try await sampler.burst() {
                    tracker.add(burst)
                    let estimate = tracker.estimate
                    clockHistory.withLock { $0 = tracker }
                    services.uplinkState.update { $0.edgeClock = estimate }
                    if let estimate {
                        Self.report(estimate, config: services.live.config.uplink, logger: logger)
                    }
                } else {
                    logger.notice("uplink: no clock sample from \(healthURL) in this burst")
                }
                try await Task.sleep(for: .milliseconds(services.live.config.uplink.clockSyncIntervalMs))
            }
        } catch {
            await sampler.close()
            throw error
        }
        await sampler.close()
    }

    private static func report(_ estimate: EdgeClockEstimate, config: UplinkSettings, logger: Logger) {
        let problems = estimate.problems(offsetLimitMs: config.clockOffsetLimitMs, driftLimitMsPerS: config.clockDriftLimitMsPerS)
        let drift = estimate.driftMsPerS.map { ", drift \($0.formatted1) ms/s" } ?? ""
        let summary = "offset \(estimate.offsetMs.formatted1) ± \(estimate.uncertaintyMs.formatted1) ms\(drift) (\(estimate.quality.rawValue))"
        if problems.isEmpty {
            logger.info("uplink: edge server clock \(summary)")
        } else {
            logger.warning("uplink: edge server clock \(summary): \(problems.joined(separator: "; "))")
        }
    }
}
