import Hummingbird
import HTTPTypes
import NIOCore

/// GET /api/health and GET /api/status.
struct StatusRoutes {
    let services: NodeServices

    func register(on router: Router<NodeRequestContext>) {
        router.get("/api/health") { _, _ in
            let report = HealthReport(services: services)
            return JSONResponse.make(report.json, status: report.level == .error ? .serviceUnavailable : .ok)
        }
        router.get("/api/status") { _, _ in JSONResponse.make(status()) }
    }

    /// The kernel clock as health reports it, with the limits it is judged by.
    private func clockStatus(_ clock: KernelClock?, config: NodeConfig) -> JSONValue {
        guard case .object(var fields)? = clock?.json else { return .null }
        fields["maxErrorLimitMs"] = .number(config.clockMaxErrorMs)
        fields["syncRequired"] = .bool(config.clockSyncRequired)
        return .object(fields)
    }

    func status() -> JSONValue {
        let health = HealthReport(services: services)
        let recorder = services.recorder.status
        let usage = services.store.usage
        let privacy = services.privacy.snapshot()
        let uplink = services.uplinkState.current
        let config = services.live.config
        func number(_ value: Int64?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        return .object([
            "health": health.json,
            "recorder": .object([
                "recording": .bool(recorder.recording),
                "source": .string(recorder.source),
                "sourceError": recorder.sourceError.map { .string($0) } ?? .null,
                "encoder": recorder.encoderName.map { .string($0) } ?? .null,
                "framesCaptured": .number(Double(recorder.framesCaptured)),
                "framesDropped": .number(Double(recorder.framesDropped)),
                "framesEncoded": .number(Double(recorder.framesEncoded)),
                "chunksWritten": .number(Double(recorder.chunksWritten)),
                "chunksCutEarly": .number(Double(recorder.chunksCutEarly)),
                "storeError": recorder.storeError.map { .string($0) } ?? .null,
                "storeWaiting": .bool(recorder.storeWaiting),
                "storeFullEvents": .number(Double(recorder.storeFullEvents)),
                "storeUnavailableEvents": .number(Double(recorder.storeUnavailableEvents)),
                "chunkStartFailures": .number(Double(recorder.chunkStartFailures)),
                "framesDroppedForStore": .number(Double(recorder.framesDroppedForStore)),
                "lastFrameMs": number(recorder.lastFrameCaptureMs),
                "lastChunk": recorder.lastChunk?.json ?? .null,
                "fps": .number(config.fps),
                "width": .number(Double(config.width)),
                "height": .number(Double(config.height)),
            ]),
            "signing": services.recorder.signing.map { source in
                guard let identity = source.identity else {
                    return .object(["waitingReason": .string(source.waitingReason ?? "not made yet")])
                }
                return .object([
                    "fingerprint": .string(identity.fingerprint),
                    "anchorFingerprint": .string(identity.anchorFingerprint),
                    "anchorSubject": .string(identity.chain.anchor.subject.description),
                    "operatorCertificate": .bool(identity.operatorProvided),
                ])
            } ?? .null,
            "privacy": .object([
                "mode": .string(config.privacy),
                "detector": .string(services.privacy.detector),
                "weakerDetectorReason": services.privacy.weakerDetectorReason.map { .string($0) } ?? .null,
                "engine": .string(services.privacy.engine.name),
                "engineFallbackReason": services.privacy.engineFallbackReason.map { .string($0) } ?? .null,
                "searchesPerSecond": .number(privacy.searchesPerSecond),
                "framesReleasedBySearch": .number(Double(privacy.framesReleasedBySearch)),
                "framesReleasedByTracking": .number(Double(privacy.framesReleasedByTracking)),
                "framesWithFaces": .number(Double(privacy.framesWithFaces)),
                "framesEdgeGuarded": .number(Double(privacy.framesEdgeGuarded)),
                "facesMasked": .number(Double(privacy.facesMasked)),
                "framesSearched": .number(Double(privacy.framesSearched)),
                "meanDetectionMs": .number(privacy.meanDetectionMs),
                "framesFailedClosed": .number(Double(privacy.framesFailedClosed)),
                "waitsForDetection": .number(Double(privacy.waitsForDetection)),
            ]),
            "store": .object([
                "directory": .string(services.store.directory.path),
                "usedBytes": .number(Double(usage.usedBytes)),
                "capBytes": .number(Double(usage.capBytes)),
                "chunks": .number(Double(usage.chunkCount)),
                "oldestMs": number(usage.oldestMs),
                "newestMs": number(usage.newestMs),
                "chunksEvicted": .number(Double(usage.chunksEvicted)),
                "pinnedChunksEvicted": .number(Double(usage.pinnedChunksEvicted)),
                "peakBytes": .number(Double(usage.peakBytes)),
                "chunksEvictedByCap": .number(Double(usage.evictedByCap.chunks)),
                "chunksEvictedByAge": .number(Double(usage.evictedByAge.chunks)),
                "bytesEvictedByCap": .number(Double(usage.evictedByCap.bytes)),
                "bytesEvictedByAge": .number(Double(usage.evictedByAge.bytes)),
                "heldChunks": .number(Double(usage.heldChunks)),
                "heldBytes": .number(Double(usage.heldBytes)),
                "maxAgeHours": .number(services.live.config.videoBufferMaxAgeHours),
            ]),
            "uplink": .object([
                "state": .string(uplink.phase.rawValue),
                "url": uplink.url.map { .string($0) } ?? .null,
                "clientName": uplink.clientName.map { .string($0) } ?? .null,
                "connectedSinceMs": number(uplink.connectedSinceMs),
                "lastError": uplink.lastError.map { .string($0) } ?? .null,
                "lastCommand": uplink.lastCommand.map { .string($0) } ?? .null,
                "lastCommandAtMs": number(uplink.lastCommandAtMs),
                "reconnectAttempt": .number(Double(uplink.reconnectAttempt)),
                "nextAttemptAtMs": number(uplink.nextAttemptAtMs),
                "timeReference": .string(config.uplink.timeReference),
                "edgeClock": uplink.edgeClock?.json ?? .null,
            ]),
            "clock": clockStatus(health.clock, config: config),
            "archive": services.archive?.statusJSON() ?? .object(["enabled": .bool(false)]),
            "announcement": .string(services.announcer.state),
            "live": services.liveVideo.statusJSON(),
            "uploads": .object([
                "bytes": .number(Double(services.uploads.bytesUploaded)),
                "files": .number(Double(services.uploads.filesUploaded)),
                "lastAtMs": number(services.uploads.lastUpload?.atMs),
                "lastFiles": .array((services.uploads.lastUpload?.files ?? []).map { .string($0) }),
            ]),
            "onvif": .object([
                "enabled": .bool(config.onvif.enabled),
                "user": .string(config.onvif.user),
                "discovery": .bool(config.onvif.enabled && config.onvif.discovery),
                "deviceServicePath": .string(ONVIFEndpoint.devicePath),
                "eventSubscriptions": .number(Double(services.onvifEvents.count)),
            ]),
            "peers": .array(services.peers.connected.map { peer in
                .object([
                    "name": peer.name.map { .string($0) } ?? .null,
                    "address": .string(peer.address),
                    "connectedAtMs": .number(Double(peer.connectedAtMs)),
                ])
            }),
        ])
    }
}
