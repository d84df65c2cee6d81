import Foundation
import Logging

/// Everything the HTTP API, the WebSocket sessions and the uplink share: one running node.
public struct NodeServices: Sendable {
    public let live: LiveConfiguration
    public let store: ChunkStore
    public let recorder: Recorder
    /// The live video the recorder feeds (fMP4 for the dashboard, LL-HLS, RTSP).
    public let liveVideo: LiveVideo
    public let peers: PeerRegistry
    /// The port's open connections, against `ConnectionLimit.defaultMaximum`.
    let connections = ConnectionLimit()
    /// What the limits refused (connections, requests, peers, holds, listings), for /metrics.
    let refusals: RefusalCounters
    /// A refused WebSocket upgrade's own answer (401, 429), for the connection's pipeline.
    let upgradeRefusals = UpgradeRefusals()
    /// ONVIF's event properties and PullPoint subscriptions (`ONVIFEventSampler` feeds them).
    let onvifEvents = PullPointSubscriptions()
    /// Profile G's searches (FindRecordings, FindEvents) until they end.
    let onvifSearches = SearchSessions()
    /// `POST /api/holds`, one placement at a time.
    let holdPlacements = HoldPlacementQueue()
    public let uploads: UploadCounters
    public let privacy: PrivacyCounters
    public let uplinkState: UplinkStateBox
    public let snapshots: SnapshotSource
    public let announcer: NodeAnnouncer
    public let clips: ClipExportQueue
    public let access: AccessPolicy
    /// The bucket chunks are copied to, when `archive.endpoint` is set.
    public let archive: ChunkArchive?
    /// The node's lasting id and its name, as the fleet knows it (mDNS, the bucket, health).
    public let identity: NodeIdentity
    public let startedAtMonotonicMs: Int64

    public init(
        live: LiveConfiguration, store: ChunkStore, recorder: Recorder, liveVideo: LiveVideo, privacy: PrivacyCounters,
        peers: PeerRegistry = PeerRegistry(), uploads: UploadCounters = UploadCounters(),
        uplinkState: UplinkStateBox = UplinkStateBox(), access: AccessPolicy = .open, archive: ChunkArchive? = nil,
        refusals: RefusalCounters = RefusalCounters()
    ) {
        self.access = access
        self.archive = archive
        self.refusals = refusals
        self.live = live
        self.store = store
        self.recorder = recorder
        self.liveVideo = liveVideo
        self.privacy = privacy
        self.peers = peers
        self.uploads = uploads
        self.uplinkState = uplinkState
        self.snapshots = SnapshotSource(recorder: recorder)
        announcer = NodeAnnouncer(logger: Logger(label: "allspark-node.mdns"))
        clips = ClipExportQueue()
        identity = NodeIdentity.resolve(storeDirectory: store.directory, configuredName: live.config.uplink.name)
        startedAtMonotonicMs = WallClock.monotonicMs()
    }

    var uploader: FileUploader {
        FileUploader(maximumMessageBytes: Int64(live.config.server.maxUploadBytes), counters: uploads)
    }

    func session(role: ProtocolSession.Role, logger: Logger) -> ProtocolSession {
        let recorder = recorder
        return ProtocolSession(
            role: role, live: live, store: store, uploader: uploader, archive: archive?.catalog, logger: logger, refusals: refusals,
            publishFootage: { throughMs in await recorder.publishFootage(throughMs: throughMs) })
    }
}
