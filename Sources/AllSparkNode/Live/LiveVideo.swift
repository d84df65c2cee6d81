import Logging
import Synchronization
import ServiceLifecycle

/// Live video: the recorder's own encoded packets (masked, no second encoder) offered to
/// viewers as an fMP4 stream for the dashboard (MSE), LL-HLS, and RTSP. The recording loop
/// only copies each packet into `ring`; everything else happens on the live side's own
/// threads and tasks, so a viewer never slows the recording.
public final class LiveVideo: Service, Sendable {
    /// A viewer further behind the newest frame than this skips to the next keyframe.
    static let maximumLagMs: Int64 = 1500
    let ring = LivePacketRing()
    let feed = LiveFragmentFeed(maximumAgeMs: LiveVideo.maximumLagMs)
    let playlist: LiveHLSPlaylist
    let counters = LiveCounters()
    let hlsViewers = LiveHLSViewers()
    private let fragmenter: LiveFragmenter

    private let rtspPort: Int
    private let rtspHost: String
    /// The RTSP password (the API token); nil: RTSP is open (`server.auth: none`).
    private let rtspPassword: String?
    /// ONVIF's user, also accepted on RTSP (nil when ONVIF is off).
    private let rtspOnvifUser: String?
    private let limiter: AccessPolicy?
    /// The store, replayed over RTSP at /replay (ONVIF Profile G); nil: no replay.
    private let replay: ReplayMount?
    private let replaySessionTimeout = Atomic<Int>(0)
    private let rtsp = Mutex<RTSPServer?>(nil)
    private let logger: Logger

    /// - Parameter rtspPassword: the token RTSP clients give as the password of user
    ///   `allspark`; nil opens RTSP to everyone.
    /// - Parameter limiter: counts RTSP's wrong credentials with the API's (the access policy).
    /// - Parameter replay: the footage RTSP replays at /replay (nil: none).
    init(config: NodeConfig, rtspPassword: String?, limiter: AccessPolicy? = nil, replay: ReplayFootage? = nil, logger: Logger) {
        self.limiter = limiter
        self.replay = replay.map { [counters] in ReplayMount(footage: $0, counters: counters.of(.replay)) }
        playlist = LiveHLSPlaylist(keyframeIntervalMs: config.encoder.keyframeIntervalMs)
        fragmenter = LiveFragmenter(ring: ring, feed: feed, playlist: playlist, counters: counters, logger: logger)
        rtspPort = config.server.rtspPort
        rtspHost = config.server.host
        rtspOnvifUser = config.onvif.enabled ? config.onvif.user : nil
        self.rtspPassword = rtspPassword
        self.logger = logger
    }

    var tap: any LivePacketTap { ring }

    /// The access token was rotated: RTSP takes the new one as its password.
    func tokenRotated(to token: String?) {
        guard let token, rtspPassword != nil, let server = rtsp.withLock({ $0 }) else { return }
        server.setPassword(token)
    }

    /// Replay is served (RTSP on, and the node replays its store).
    var servesReplay: Bool { replay != nil && rtspPort > 0 }

    /// The RTSP session timeout in seconds (ONVIF's replay configuration; 0: the library's, 60).
    var sessionTimeoutSeconds: Int { replaySessionTimeout.load(ordering: .relaxed) }

    func setSessionTimeout(seconds: Int) {
        replaySessionTimeout.store(seconds, ordering: .relaxed)
        rtsp.withLock { $0 }?.setSessionTimeout(seconds: seconds)
    }

    func totals(_ kind: LiveCounters.Kind) -> LiveCounters.Totals {
        if kind == .hls { counters.of(.hls).viewers.store(hlsViewers.active(), ordering: .relaxed) }
        if kind == .rtsp, let server = rtsp.withLock({ $0 }) {
            let rtsp = server.counters
            return LiveCounters.Totals(viewers: Int(rtsp.viewers), bytesSent: Int(rtsp.bytes_pushed), skips: Int(rtsp.skips), dropped: 0)
        }
        return counters.totals(kind)
    }

    /// `live` in /api/status: viewers, bytes sent and skips by kind of viewer.
    func statusJSON() -> JSONValue {
        var kinds: [String: JSONValue] = [:]
        for kind in LiveCounters.Kind.allCases {
            let totals = totals(kind)
            kinds[kind.rawValue] = .object([
                "viewers": .number(Double(totals.viewers)),
                "bytesSent": .number(Double(totals.bytesSent)),
                "skips": .number(Double(totals.skips)),
                "dropped": .number(Double(totals.dropped)),
            ])
        }
        return .object([
            "viewers": .object(kinds),
            "fragmenterSkips": .number(Double(counters.fragmenterSkips.load(ordering: .relaxed))),
        ])
    }

    public func run() async throws {
        fragmenter.start()
        defer { fragmenter.stop() }
        var feeder: RTSPFeeder?
        if rtspPort > 0 {
            do {
                let server = try RTSPServer(
                    host: rtspHost, port: rtspPort, password: rtspPassword, onvifUser: rtspOnvifUser, limiter: limiter,
                    replay: replay)
                server.setSessionTimeout(seconds: sessionTimeoutSeconds)
                rtsp.withLock { $0 = server }
                feeder = RTSPFeeder(ring: ring, server: server)
                feeder?.start()
                logger.notice("serving live video over RTSP on rtsp://\(rtspHost):\(rtspPort)/live\(rtspPassword == nil ? "" : " (user allspark, the token as password)")")
            } catch {
                logger.error("RTSP is off: \(error) (server.rtspPort)")
            }
        }
        try? await gracefulShutdown()
        feeder?.stop()
        rtsp.withLock { $0 = nil }
    }
}
