import Prometheus
import Synchronization

/// GET /metrics in Prometheus text format (swift-prometheus). The node's counters live in
/// the recorder, store, privacy pass and uploader; at each scrape this brings the
/// Prometheus counters up to them (counters only ever move forward) and sets the gauges.
final class MetricsExporter: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let services: NodeServices
    private let exported = Mutex<[String: Int64]>([:])
    private let counters: [String: Counter]
    private let gauges: [String: Gauge]
    /// Always 1; its label names the face detector searching.
    private let detectorInfo: Gauge
    private let engineInfo: Gauge
    /// Live video by kind of viewer (label kind: mse, hls, rtsp).
    private let liveViewers: [LiveCounters.Kind: Gauge]
    private let liveBytes: [LiveCounters.Kind: Counter]
    private let liveSkips: [LiveCounters.Kind: Counter]
    /// What each of the node's limits refused (label limit), from `RefusalCounters`.
    private let refused: [RefusalCounters.Limit: Counter]

    private static var counterDescriptors: [MetricNameDescriptor] {
        [
            metric("frames_captured", unit: "total", help: "Frames delivered by the capture source"),
            metric("frames_dropped", unit: "total", help: "Frames dropped before encoding (pipeline behind real time, privacy refusals)"),
            metric("frames_encoded", unit: "total", help: "Frames sent to the H.264 encoder"),
            metric("faces_masked", unit: "total", help: "Face boxes masked, summed over frames"),
            metric("frames_with_faces", unit: "total", help: "Frames in which at least one face was masked"),
            metric("frames_searched", unit: "total", help: "Frames the face detector searched (live detection samples frames)"),
            metric("frames_released_by_search", unit: "total", help: "Frames that left the privacy pass searched themselves"),
            metric("frames_released_by_tracking", unit: "total", help: "Frames that left the privacy pass masked with faces tracked from searched frames"),
            metric("frames_edge_guarded", unit: "total", help: "Frames the edge guard masked a band at the picture's edge in"),
            metric("frames_failed_closed", unit: "total", help: "Frames masked whole because face detection failed"),
            metric(
                "privacy_waits_for_detection", unit: "total",
                help: "Times a frame waited for a search (detection behind); the source drops frames meanwhile (frames_dropped)"),
            metric("chunks_written", unit: "total", help: "Chunks published to the store"),
            metric("chunks_cut_early", unit: "total", help: "Chunks ended early so that a request could have their footage at once"),
            metric("chunks_evicted", unit: "total", help: "Chunks deleted to keep the store under its cap"),
            metric("pinned_chunks_evicted", unit: "total", help: "Chunks deleted under the cap while an upload still needed them"),
            metric("chunks_evicted_by_cap", unit: "total", help: "Chunks deleted to stay under the cap or above a nearly full disk's floor"),
            metric("evicted_by_cap", unit: "bytes_total", help: "Bytes of the chunks deleted to stay under the cap"),
            metric("chunks_evicted_by_age", unit: "total", help: "Chunks deleted because their last frame passed videoBufferMaxAgeHours"),
            metric("evicted_by_age", unit: "bytes_total", help: "Bytes of the chunks deleted for age"),
            metric("store_full", unit: "total", help: "Times recording paused because the disk had no room for a chunk"),
            metric("store_unavailable", unit: "total", help: "Times recording paused because the store vanished, turned read-only or failed to write"),
            metric("chunk_start_failures", unit: "total", help: "Chunks that could not start (a full or unavailable store; retries included)"),
            metric("frames_dropped_store", unit: "total", help: "Frames dropped while the store could take no chunk (also in frames_dropped)"),
            metric("upload_bytes", unit: "total", help: "Bytes of files uploaded over WebSocket"),
            metric("upload_files", unit: "total", help: "Files uploaded over WebSocket"),
            metric("archive_chunks", unit: "total", help: "Chunks copied to the archive bucket"),
            metric("archive_bytes", unit: "total", help: "Bytes uploaded to the archive bucket"),
            metric("archive_upload_failures", unit: "total", help: "Failed attempts to archive a chunk (each retried)"),
            metric("archive_evicted_before_archive", unit: "total", help: "Chunks the ring evicted before they could be archived"),
            metric("archive_deleted_by_age", unit: "total", help: "Archived chunks deleted from the bucket for archive.maxAgeDays"),
            metric("archive_deleted_by_age", unit: "bytes_total", help: "Bytes of the archived chunks deleted for age"),
        ]
    }
    private static var gaugeDescriptors: [MetricNameDescriptor] {
        [
            metric("store", unit: "bytes", help: "Bytes the store holds, the chunk being written included"),
            metric("store_cap", unit: "bytes", help: "The store's cap in bytes"),
            metric("store_chunks", unit: "", help: "Chunks in the store"),
            metric("store_held_chunks", unit: "", help: "Chunks a hold (evidence lock) keeps"),
            metric("store_held", unit: "bytes", help: "Bytes of the chunks holds keep (they count toward the cap)"),
            metric("store_writing", unit: "", help: "1 while the store takes chunks, 0 while frames are dropped for a full or unavailable store"),
            metric("websocket_peers", unit: "", help: "WebSocket peers connected to the node"),
            metric("recording", unit: "", help: "1 while frames are being recorded"),
            metric("uplink_connected", unit: "", help: "1 while connected to an edge server"),
            metric("privacy_detection", unit: "ms", help: "Mean face detection time per searched frame in ms"),
            metric("privacy_searches_per_second", unit: "", help: "Face searches per second, recent average"),
            metric("clock_synchronized", unit: "", help: "1 while the kernel says a time daemon keeps its clock synchronised (adjtimex)"),
            metric("clock_estimated_error", unit: "ms", help: "The kernel clock's estimated error (adjtimex esterror)"),
            metric("clock_maximum_error", unit: "ms", help: "The kernel clock's maximum error (adjtimex maxerror)"),
            metric("edge_clock_offset", unit: "ms", help: "Edge server clock minus node clock, latest burst (NaN until measured)"),
            metric("edge_clock_uncertainty", unit: "ms", help: "Half the longest round trip of the samples the offset rests on"),
            metric("edge_clock_drift", unit: "ms_per_second", help: "Change of the offset per second, by regression over recent bursts (NaN until known)"),
            metric("archive_backlog_chunks", unit: "", help: "Chunks waiting to be archived (NaN when the archive is off)"),
            metric("archive_backlog", unit: "bytes", help: "Bytes of the chunks waiting to be archived"),
            metric("archive_lag", unit: "seconds", help: "Age of the oldest chunk not yet archived; 0 when none waits"),
            metric("archive_upload_rate", unit: "bytes_per_second", help: "Bytes uploaded to the archive per second over the last minute"),
        ]
    }

    /// `allspark_<name>_<unit>`, the unit left out when empty.
    private static func metric(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "allspark", metricName: name, unitName: unit, helpText: help)
    }

    init(services: NodeServices) {
        self.services = services
        var counters: [String: Counter] = [:]
        for descriptor in Self.counterDescriptors { counters[descriptor.name] = registry.makeCounter(descriptor: descriptor) }
        var gauges: [String: Gauge] = [:]
        for descriptor in Self.gaugeDescriptors { gauges[descriptor.name] = registry.makeGauge(descriptor: descriptor) }
        self.counters = counters
        self.gauges = gauges
        var liveViewers: [LiveCounters.Kind: Gauge] = [:]
        var liveBytes: [LiveCounters.Kind: Counter] = [:]
        var liveSkips: [LiveCounters.Kind: Counter] = [:]
        for kind in LiveCounters.Kind.allCases {
            let labels = [("kind", kind.rawValue)]
            liveViewers[kind] = registry.makeGauge(
                descriptor: Self.metric("live_viewers", unit: "", help: "Live video viewers connected now"), labels: labels)
            liveBytes[kind] = registry.makeCounter(
                descriptor: Self.metric("live_sent", unit: "bytes_total", help: "Bytes of live video sent"), labels: labels)
            liveSkips[kind] = registry.makeCounter(
                descriptor: Self.metric("live_skips", unit: "total", help: "Times a live viewer fell behind and skipped to the next keyframe"),
                labels: labels)
        }
        self.liveViewers = liveViewers
        self.liveBytes = liveBytes
        self.liveSkips = liveSkips
        var refused: [RefusalCounters.Limit: Counter] = [:]
        for limit in RefusalCounters.Limit.allCases {
            refused[limit] = registry.makeCounter(
                descriptor: Self.metric(
                    "requests_refused", unit: "total",
                    help: "Connections, requests, WebSocket peers and messages, holds and bucket listings a limit refused (label limit)"),
                labels: [("limit", limit.rawValue)])
        }
        self.refused = refused
        detectorInfo = registry.makeGauge(
            name: "allspark_privacy_detector_info", labels: [("detector", services.privacy.detector)],
            help: "The face detector the privacy pass searches with (label detector)")
        engineInfo = registry.makeGauge(
            name: "allspark_privacy_engine_info",
            labels: [("engine", services.privacy.engine.label), ("version", services.privacy.engine.version)],
            help: "What runs the face net: onnxruntime or opencv-dnn (labels engine, version)")
    }

    func render() -> String {
        let recorder = services.recorder.status
        let usage = services.store.usage
        let privacy = services.privacy.snapshot()
        let archive = services.archive?.status()
        let ageDeletions = services.archive?.ageDeletionLog
        let totals: [String: Int64] = [
            "allspark_archive_chunks_total": Int64(archive?.chunksArchived ?? 0),
            "allspark_archive_bytes_total": archive?.bytesArchived ?? 0,
            "allspark_archive_upload_failures_total": Int64(archive?.uploadFailures ?? 0),
            "allspark_archive_evicted_before_archive_total": Int64(archive?.evictedBeforeArchive ?? 0),
            "allspark_archive_deleted_by_age_total": Int64(ageDeletions?.chunksDeleted ?? 0),
            "allspark_archive_deleted_by_age_bytes_total": ageDeletions?.bytesDeleted ?? 0,
            "allspark_frames_captured_total": Int64(recorder.framesCaptured),
            "allspark_frames_dropped_total": Int64(recorder.framesDropped),
            "allspark_frames_encoded_total": Int64(recorder.framesEncoded),
            "allspark_faces_masked_total": Int64(privacy.facesMasked),
            "allspark_frames_with_faces_total": Int64(privacy.framesWithFaces),
            "allspark_frames_searched_total": Int64(privacy.framesSearched),
            "allspark_frames_released_by_search_total": Int64(privacy.framesReleasedBySearch),
            "allspark_frames_released_by_tracking_total": Int64(privacy.framesReleasedByTracking),
            "allspark_frames_failed_closed_total": Int64(privacy.framesFailedClosed),
            "allspark_frames_edge_guarded_total": Int64(privacy.framesEdgeGuarded),
            "allspark_privacy_waits_for_detection_total": Int64(privacy.waitsForDetection),
            "allspark_chunks_written_total": Int64(recorder.chunksWritten),
            "allspark_chunks_cut_early_total": Int64(recorder.chunksCutEarly),
            "allspark_chunks_evicted_total": Int64(usage.chunksEvicted),
            "allspark_pinned_chunks_evicted_total": Int64(usage.pinnedChunksEvicted),
            "allspark_chunks_evicted_by_cap_total": Int64(usage.evictedByCap.chunks),
            "allspark_evicted_by_cap_bytes_total": usage.evictedByCap.bytes,
            "allspark_chunks_evicted_by_age_total": Int64(usage.evictedByAge.chunks),
            "allspark_evicted_by_age_bytes_total": usage.evictedByAge.bytes,
            "allspark_store_full_total": Int64(recorder.storeFullEvents),
            "allspark_store_unavailable_total": Int64(recorder.storeUnavailableEvents),
            "allspark_chunk_start_failures_total": Int64(recorder.chunkStartFailures),
            "allspark_frames_dropped_store_total": Int64(recorder.framesDroppedForStore),
            "allspark_upload_bytes_total": services.uploads.bytesUploaded,
            "allspark_upload_files_total": Int64(services.uploads.filesUploaded),
        ]
        var labelledTotals: [(key: String, counter: Counter?, total: Int64)] = []
        for kind in LiveCounters.Kind.allCases {
            let live = services.liveVideo.totals(kind)
            liveViewers[kind]?.set(to: Double(live.viewers))
            labelledTotals.append(("live_bytes_\(kind)", liveBytes[kind], Int64(live.bytesSent)))
            labelledTotals.append(("live_skips_\(kind)", liveSkips[kind], Int64(live.skips)))
        }
        for limit in RefusalCounters.Limit.allCases {
            labelledTotals.append(("refused_\(limit.rawValue)", refused[limit], Int64(services.refusals.total(limit))))
        }
        exported.withLock { exported in
            for (name, total) in totals {
                let delta = total - exported[name, default: 0]
                if delta > 0 {
                    counters[name]?.increment(by: delta)
                    exported[name] = total
                }
            }
            for (key, counter, total) in labelledTotals {
                let delta = total - exported[key, default: 0]
                if delta > 0 {
                    counter?.increment(by: delta)
                    exported[key] = total
                }
            }
        }
        gauges["allspark_store_bytes"]?.set(to: Double(usage.usedBytes))
        gauges["allspark_store_cap_bytes"]?.set(to: Double(usage.capBytes))
        gauges["allspark_store_chunks"]?.set(to: Double(usage.chunkCount))
        gauges["allspark_store_held_chunks"]?.set(to: Double(usage.heldChunks))
        gauges["allspark_store_held_bytes"]?.set(to: Double(usage.heldBytes))
        gauges["allspark_store_writing"]?.set(to: recorder.storeWaiting ? 0 : 1)
        gauges["allspark_websocket_peers"]?.set(to: Double(services.peers.connected.count))
        gauges["allspark_recording"]?.set(to: recorder.recording ? 1 : 0)
        gauges["allspark_uplink_connected"]?.set(to: services.uplinkState.current.phase == .connected ? 1 : 0)
        gauges["allspark_privacy_detection_ms"]?.set(to: privacy.meanDetectionMs)
        gauges["allspark_privacy_searches_per_second"]?.set(to: privacy.searchesPerSecond)
        let clock = KernelClock.read()
        gauges["allspark_clock_synchronized"]?.set(to: clock.map { $0.synchronized ? 1 : 0 } ?? .nan)
        gauges["allspark_clock_estimated_error_ms"]?.set(to: clock?.estimatedErrorMs ?? .nan)
        gauges["allspark_clock_maximum_error_ms"]?.set(to: clock?.maximumErrorMs ?? .nan)
        let edgeClock = services.uplinkState.current.edgeClock
        gauges["allspark_edge_clock_offset_ms"]?.set(to: edgeClock?.offsetMs ?? .nan)
        gauges["allspark_edge_clock_uncertainty_ms"]?.set(to: edgeClock?.uncertaintyMs ?? .nan)
        gauges["allspark_edge_clock_drift_ms_per_second"]?.set(to: edgeClock?.driftMsPerS ?? .nan)
        gauges["allspark_archive_backlog_chunks"]?.set(to: archive.map { Double($0.backlogChunks) } ?? .nan)
        gauges["allspark_archive_backlog_bytes"]?.set(to: archive.map { Double($0.backlogBytes) } ?? .nan)
        gauges["allspark_archive_lag_seconds"]?.set(to: archive.map { Double($0.lagMs) / 1000 } ?? .nan)
        gauges["allspark_archive_upload_rate_bytes_per_second"]?.set(to: archive?.uploadBytesPerSecond ?? .nan)
        detectorInfo.set(to: 1)
        engineInfo.set(to: 1)
        return registry.emitToString()
    }
}
