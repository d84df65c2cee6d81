import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

/// One running AllSpark node: recorder, store, API server, and (when configured) the
/// uplink to an edge server, wired together and run as one service group. SIGTERM and
/// SIGINT shut it down gracefully: the current chunk is finished first.
public struct CameraNode: Sendable {
    public let services: NodeServices
    private let logger: Logger

    public init(config: NodeConfig, logger: Logger) throws {
        self.logger = logger
        var config = config
        try H264Encoder.checkOpens(config.encoder, logger: logger)
        let privacy = try PrivacyPass(config: config, logger: logger)
        let store = try ChunkStore(
            directory: config.storeDirectory, capBytes: config.capBytes, retention: RetentionPolicy(config), logger: logger)
        // Early: a signing key file that is not right stops the node before the token and TLS files are made.
        let nodeName = ClientIdentity.name(configured: config.uplink.name, storeDirectory: store.directory)
        let signing = try SigningIdentitySource(
            storeDirectory: store.directory.path, configuredCertificate: config.signingCertificate, nodeName: nodeName, logger: logger)
        config.server = try AccessSetup.resolvingTLS(config.server, storeDirectory: store.directory.path, logger: logger)
        if let problem = HealthReport.clockBehindProblem(newestRecordingMs: store.usage.newestMs, nowMs: WallClock.nowMs(), config: config) {
            logger.warning("\(problem)")
        }
        let access = try AccessSetup.policy(for: config.server, storeDirectory: store.directory.path, logger: logger)
        // The services' own, made first so that the archive's catalog counts into it too.
        let refusals = RefusalCounters()
        let archive = try config.archive.isEnabled
            ? ChunkArchive(
                settings: config.archive, nodeName: nodeName,
                storeDirectory: store.directory, refusals: refusals, logger: logger)
            : nil
        // Replay plays from the archive too, where the ring has let footage go.
        let liveVideo = LiveVideo(
            config: config, rtspPassword: access.currentToken, limiter: access,
            replay: config.onvif.enabled ? ReplayFootage(store: store, archive: archive?.catalog) : nil, logger: logger)
        let recorder = Recorder(
            config: config, store: store, logger: logger, liveVideo: liveVideo, signing: signing, makeMasker: privacy.makeMasker)
        let live = LiveConfiguration(config: config, recorder: recorder, logger: logger)
        let services = NodeServices(
            live: live, store: store, recorder: recorder, liveVideo: liveVideo, privacy: privacy.counters, access: access, archive: archive,
            refusals: refusals)
        recorder.onChunkSaved { record in
            archive?.chunkSaved(record)
            let status = recorder.status
            services.peers.broadcast(
                ProtocolMessage.chunkSaved(record, fps: live.config.fps, width: status.frameWidth, height: status.frameHeight))
        }
        self.services = services
    }

    /// Runs until a signal or until recording ends (a non-looping file). `onServerRunning`
    /// receives the bound port (useful with port 0).
    public func run(signals: [UnixSignal] = [.sigterm, .sigint], onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let config = services.live.config
        let logger = logger
        let announcer = services.announcer
        let identity = services.identity
        defer { announcer.withdraw() }
        let dashboard = config.server.dashboardDirectory
        if FileManager.default.fileExists(atPath: dashboard + "/index.html") {
            logger.info("dashboard files from \(dashboard)")
        } else {
            logger.warning("no dashboard at \(dashboard) (server.webDirectory): / will answer 404")
        }
        let notifier = SystemdNotifier()
        let supervision = notifier.isSupervised ? SystemdSupervision(notifier: notifier, recorder: services.recorder, logger: logger) : nil
        let registry = services.archive.map {
            RegistryWriter(identity: identity, archive: $0, store: services.store, server: config.server, signing: services.recorder.signing, logger: logger)
        }
        let discovery =
            config.onvif.enabled && config.onvif.discovery
            ? WSDiscoveryResponder(
                identity: identity, scopes: ONVIFDeviceFacts.scopes(name: identity.name, replays: config.server.rtspPort > 0), tls: config.server.usesTLS,
                logger: Logger(label: "allspark-node.onvif"))
            : nil
        let application = try NodeServer.makeApplication(services: services, logger: logger) { port in
            discovery?.serverStarted(port: port)
            logger.notice("serving the API, WebSocket and dashboard on \(config.server.usesTLS ? "https" : "http")://\(config.server.host):\(port)/")
            if config.server.announce { announcer.announce(identity: identity, port: port, tls: config.server.usesTLS) }
            supervision?.serverStarted(port: port)
            registry?.serverStarted(port: port)
            await onServerRunning(port)
        }
        var serviceList: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: services.recorder, successTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: application),
            .init(service: services.liveVideo),
            .init(service: AgeRetention(store: services.store, logger: logger)),
        ]
        if let discovery { serviceList.append(.init(service: discovery)) }
        if config.onvif.enabled { serviceList.append(.init(service: ONVIFEventSampler(services: services))) }
        if let supervision {
            serviceList.append(.init(service: supervision, successTerminationBehavior: .ignore))
        }
        if services.access.tokenFile != nil {
            serviceList.append(.init(service: AccessTokenWatcher(policy: services.access, peers: services.peers, liveVideo: services.liveVideo, logger: logger)))
        }
        // Before the recorder, so that it stops after it and sends the last chunk.
        if let archive = services.archive {
            // Holds `fleet hold` left in the bucket while the node was down: taken into the ring
            // before the recorder starts evicting (the bucket given 5 s), then every minute.
            let intake = BucketHoldsIntake(archive: archive, store: services.store, logger: logger)
            await intake.firstPass(within: .seconds(5))
            serviceList.append(.init(service: intake))
            serviceList.insert(.init(service: ArchiveUploader(archive: archive, store: services.store, logger: logger)), at: 0)
            if config.archive.maxAgeDays > 0 {
                serviceList.append(.init(service: ArchiveAgeRetention(archive: archive, store: services.store, maxAgeDays: config.archive.maxAgeDays, logger: logger)))
            }
        }
        // First, so that it stops last (RegistryWriter).
        if let registry { serviceList.insert(.init(service: registry), at: 0) }
        if config.uplink.url != "off" {
            let browser = EdgeServerBrowser(logger: logger)
            let uplink = Uplink(settings: config.uplink, services: services, logger: logger) {
                try await browser.findFirst(timeout: .seconds(5)).map { EdgeServerAddress(host: $0.host, port: $0.port) }
            }
            serviceList.append(.init(service: uplink))
        }
        let group = ServiceGroup(configuration: .init(services: serviceList, gracefulShutdownSignals: signals, logger: logger))
        try await group.run()
    }
}
