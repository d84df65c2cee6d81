/// Everything the node can be told, with the defaults documented in config/allspark-node.yaml.
public struct NodeConfig: Sendable, Equatable {
    /// `auto` (first camera, else the test pattern), a device path, a media file, or `testsrc`.
    public var source: String = "auto"
    /// Output picture size; 0 keeps the source's own size.
    public var width: Int = 1280
    public var height: Int = 720
    public var fps: Double = 30
    /// What to ask a V4L2 camera for: `auto` picks from what it offers at the size and rate
    /// (CameraFormatChoice), else yuyv422, uyvy422, nv12, yuv420p, mjpeg or h264.
    public var cameraFormat: String = "auto"
    /// Files loop forever unless this is false (then the node stops at the end of the file).
    public var loop: Bool = true
    /// Files and the test pattern are paced at real time unless this is false.
    public var pace: Bool = true

    public var storeDirectory: String = "./data"
    public var videoFormat: VideoFormat = .mp4
    public var videoChunkDurationMs: Int = 30_000
    /// Store cap in MiB; fractions allowed for tests with tiny caps.
    public var videoBufferMaxMB: Double = 4096
    /// Chunks whose last frame is older than this many hours are deleted, whatever room is
    /// left (a data protection officer's retention period); 0: no age limit. Held chunks stay.
    public var videoBufferMaxAgeHours: Double = 0
    /// The most of the cap that holds (evidence locks) may take; the rest is recording's.
    public var videoBufferMaxHeldShare: Double = 0.5

    public var encoder = EncoderSettings()
    public var privacy: String = "face"
    /// `auto` (the best face net installed: YuNet, else CenterFace; else the cascades),
    /// `dnn`, `yunet`, `centerface`, `cascades` or `both`.
    public var privacyDetector: String = "auto"
    /// The ONNX model the face net loads (YuNet 2023mar or CenterFace); empty: the installed one.
    public var privacyModel: String = ""
    /// What runs YuNet: `auto` (ONNX Runtime where its library opens, else OpenCV's dnn
    /// with a warning), `onnxruntime` (required) or `opencv`.
    public var privacyEngine: String = "auto"
    /// The ONNX Runtime library to open; empty: the package's, setup.sh's, then the system's.
    public var privacyEngineLibrary: String = ""
    /// `mosaic` or `fill`.
    public var privacyMask: String = "mosaic"
    /// Frames wider than this are shrunk before the face search: smaller is faster and
    /// misses smaller faces.
    public var privacyDetectionWidth: Int = 640
    /// Search every frame for faces instead of as many as detection keeps up with: a live
    /// source then records only as many frames per second as detection manages.
    public var privacyEveryFrame: Bool = false
    /// How far past a frame the face searches must have looked before it is encoded: a
    /// face found this late is still masked back to where it came in. Adds to latency.
    public var privacyLookbackMs = Int(DelayLineMasker.Settings.defaultLookbackMs)
    /// Where much of the picture changed, search every this many frames (the frames between
    /// wait for the next search, which masks a face found there back into them).
    public var privacyBusySearchStride = DelayLineMasker.Settings.defaultBusySearchStride
    /// Mask what is crossing an edge of the picture before a search can tell whether it is a face (`EdgeGuard`).
    public var privacyEdgeGuard = true
    /// `/api/health` is degraded when the kernel clock's maximum error is above this.
    public var clockMaxErrorMs: Double = 100
    /// An unsynchronised kernel clock (no NTP or PTP daemon) degrades `/api/health`; false
    /// for nodes that keep time some other way.
    public var clockSyncRequired: Bool = true
    /// The operator's CA-issued chain (PEM: the signing certificate first, the trust anchor
    /// last) for the node's media signing key; empty: the chain `signing install` put in the
    /// store, else the node's own anchor (`MediaSigningIdentity`).
    public var signingCertificate: String = ""
    public var server = ServerSettings()
    public var uplink = UplinkSettings()
    public var archive = ArchiveSettings()
    /// The dashboard's Fleet page: a file of `name: token` lines for the other nodes.
    public var fleetTokensFile: String = ""
    /// Whether the Fleet page's own token is sent to nodes the tokens file does not name.
    /// Off by default: whoever can write the bucket or announce on the LAN could name a
    /// "node" of their own and collect it.
    public var fleetShareToken: Bool = false
    /// The node as a standard ONVIF camera (device and media services, WS-Discovery).
    public var onvif = ONVIFSettings()

    public init() {}

    public var capBytes: Int64 { Int64(videoBufferMaxMB * 1024 * 1024) }
    /// `privacyModel`, or nil for the model the package or `scripts/setup.sh` installed.
    public var faceModelFile: String? { privacyModel.isEmpty ? nil : privacyModel }
    /// `privacyEngineLibrary`, or nil to look where the package and `scripts/setup.sh` put it.
    public var onnxRuntimeLibrary: String? { privacyEngineLibrary.isEmpty ? nil : privacyEngineLibrary }
}

public enum VideoFormat: String, Sendable, CaseIterable {
    case mp4
    case mov

    public var mimeType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        }
    }
}

public struct EncoderSettings: Sendable, Equatable {
    /// libavcodec encoder name; hardware encoders fall back to libx264 when they cannot open.
    public var codec: String = "libx264"
    public var preset: String = "veryfast"
    /// Constant rate factor; used when `bitrateKbps` is 0.
    public var crf: Int = 23
    public var bitrateKbps: Int = 0
    /// Keyframe interval; also the crash-loss window, since fragments start at keyframes.
    public var keyframeIntervalMs: Int = 1000
    /// The encoder's own options, `key=value` pairs separated by commas, applied over the
    /// preset (libx264: `tune=zerolatency`, `x264-params=rc-lookahead=5:bframes=0`).
    public var options: String = ""

    public init() {}
}

public struct ServerSettings: Sendable, Equatable {
    /// 8090: clear of the edge server's 8080 (and 9080), so both can run on one machine.
    public var port: Int = 8090
    public var host: String = "0.0.0.0"
    /// `token` (default): everything but /api/health and the dashboard's static files needs
    /// `Authorization: Bearer <token>` (WebSocket: that header or `?token=`); `none`: open,
    /// for closed lab networks, with a warning at every start.
    public var auth: String = "token"
    /// A fixed token; empty: the node makes one and keeps it in the store (`.allspark-token`).
    public var token: String = ""
    /// Also accepted on /metrics, for a Prometheus scrape config that should not hold the API token.
    public var metricsToken: String = ""
    /// `off`, or `auto`: a self-signed certificate made once and kept in the store. Ignored
    /// when certificate files are given.
    public var tls: String = "off"
    /// PEM files; with both set the node serves https and wss only.
    public var tlsCertificate: String = ""
    public var tlsKey: String = ""
    /// The dashboard's files, relative to the working directory; empty: the installed
    /// dashboard, else `web/` of the working directory (`dashboardDirectory`).
    public var webDirectory: String = ""
    /// Largest file sent as one WebSocket message; the edge server drops anything of 300 MiB or more.
    public var maxUploadBytes: Int = 314_572_799
    /// Largest clip `/api/clip` makes, in MiB (bounded by the bytes of the chunks it joins);
    /// a longer range is refused with the way to fetch its chunks instead.
    public var maxClipMB: Int = 2048
    /// Publish the node with mDNS (`_allspark-node._tcp`) through avahi-daemon.
    public var announce: Bool = true
    /// Live video over RTSP at rtsp://<node>:<rtspPort>/live; 0 turns RTSP off.
    public var rtspPort: Int = 8554

    public init() {}

    public var usesTLS: Bool { !tlsCertificate.isEmpty && !tlsKey.isEmpty }
    public var dashboardDirectory: String { webDirectory.isEmpty ? InstallLayout.current.webDirectory : webDirectory }
    public var maxClipBytes: Int64 { Int64(maxClipMB) << 20 }
}

public struct UplinkSettings: Sendable, Equatable {
    /// `off`, `auto` (find `_allspark._tcp` with mDNS), or a ws:// or wss:// URL of an edge server.
    public var url: String = "off"
    /// The clientInfo name; empty uses the host name. A persisted 3-digit nonce is appended
    /// when the name has no run of 3 digits, as the iOS app does.
    public var name: String = ""
    /// Whose clock an edge server's uploadTimeRange is read in: `edge` (mapped to node time
    /// through the measured offset once one is known) or `node` (taken as it is).
    public var timeReference: String = "edge"
    /// How often the edge server's clock is measured while connected.
    public var clockSyncIntervalMs: Int = 60_000
    /// A warning is logged (and health degraded) when the edge server's clock is further off than this.
    public var clockOffsetLimitMs: Double = 50
    /// ... or drifts faster than this, either way.
    public var clockDriftLimitMsPerS: Double = 2

    public init() {}
}

public struct ONVIFSettings: Sendable, Equatable {
    /// The device and media services at /onvif/device_service and /onvif/media_service.
    public var enabled: Bool = true
    /// The user name ONVIF clients give (WS-Security, and Digest on RTSP and the snapshot);
    /// the password is the node's access token.
    public var user: String = "admin"
    /// Answer WS-Discovery probes on UDP 3702 (and say Hello and Bye).
    public var discovery: Bool = true

    public init() {}
}
