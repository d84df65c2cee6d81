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

    private static let counterHelp: [(String, String)] = [
        ("allspark_frames_captured_total", "Frames delivered by the capture source"),
        ("allspark_frames_dropped_total", "Frames dropped before encoding (pipeline behind real time, privacy refusals)"),
        ("allspark_frames_encoded_total", "Frames sent to the H.264 encoder"),
        ("allspark_faces_masked_total", "Face boxes masked, summed over frames"),
        ("allspark_frames_with_faces_total", "Frames in which at least one face was masked"),
        ("allspark_chunks_written_total", "Chunks published to the store"),
        ("allspark_chunks_evicted_total", "Chunks deleted to keep the store under its cap"),
        ("allspark_upload_bytes_total", "Bytes of files uploaded over WebSocket"),
        ("allspark_upload_files_total", "Files uploaded over WebSocket"),
    ]
    private static let gaugeHelp: [(String, String)] = [
        ("allspark_store_bytes", "Bytes the store holds, the chunk being written included"),
        ("allspark_store_cap_bytes", "The store's cap in bytes"),
        ("allspark_store_chunks", "Chunks in the store"),
        ("allspark_websocket_peers", "WebSocket peers connected to the node"),
        ("allspark_recording", "1 while frames are being recorded"),
        ("allspark_uplink_connected", "1 while connected to an edge server"),
        ("allspark_privacy_detection_ms", "Mean face detection time per frame in ms"),
    ]

    init(services: NodeServices) {
        self.services = services
        var counters: [String: Counter] = [:]
        for (name, help) in Self.counterHelp { counters[name] = registry.makeCounter(name: name, help: help) }
        var gauges: [String: Gauge] = [:]
        for (name, help) in Self.gaugeHelp { gauges[name] = registry.makeGauge(name: name, help: help) }
        self.counters = counters
        self.gauges = gauges
    }

    func render() -> String {
        let recorder = services.recorder.status
        let usage = services.store.usage
        let privacy = services.privacy.snapshot()
        let totals: [String: Int64] = [
            "allspark_frames_captured_total": Int64(recorder.framesCaptured),
            "allspark_frames_dropped_total": Int64(recorder.framesDropped),
            "allspark_frames_encoded_total": Int64(recorder.framesEncoded),
            "allspark_faces_masked_total": Int64(privacy.facesMasked),
            "allspark_frames_with_faces_total": Int64(privacy.framesWithFaces),
            "allspark_chunks_written_total": Int64(recorder.chunksWritten),
            "allspark_chunks_evicted_total": Int64(usage.chunksEvicted),
            "allspark_upload_bytes_total": services.uploads.bytesUploaded,
            "allspark_upload_files_total": Int64(services.uploads.filesUploaded),
        ]
        exported.withLock { exported in
            for (name, total) in totals {
                let delta = total - exported[name, default: 0]
                if delta > 0 {
                    counters[name]?.increment(by: delta)
                    exported[name] = total
                }
            }
        }
        gauges["allspark_store_bytes"]?.set(to: Double(usage.usedBytes))
        gauges["allspark_store_cap_bytes"]?.set(to: Double(usage.capBytes))
        gauges["allspark_store_chunks"]?.set(to: Double(usage.chunkCount))
        gauges["allspark_websocket_peers"]?.set(to: Double(services.peers.connected.count))
        gauges["allspark_recording"]?.set(to: recorder.recording ? 1 : 0)
        gauges["allspark_uplink_connected"]?.set(to: services.uplinkState.current.phase == .connected ? 1 : 0)
        gauges["allspark_privacy_detection_ms"]?.set(to: privacy.meanDetectionMs)
        return registry.emitToString()
    }
}
