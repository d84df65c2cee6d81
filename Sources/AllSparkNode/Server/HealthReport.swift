import Foundation

/// The node's health as `GET /api/health` reports it. Red (503) when capture has stalled
/// or the store cannot be written; yellow (degraded, still 200) for problems that do not
/// stop recording.
struct HealthReport {
    enum Level: String { case ok, degraded, error }

    /// No frame for this long while recording is expected means capture has stalled.
    static let stalledAfterMs: Int64 = 3000

    let level: Level
    let json: JSONValue

    init(services: NodeServices, nowMonotonicMs: Int64 = WallClock.monotonicMs()) {
        let status = services.recorder.status
        let usage = services.store.usage
        let uplink = services.uplinkState.current
        let uptimeMs = nowMonotonicMs - services.startedAtMonotonicMs
        var errors: [String] = []
        var warnings: [String] = []

        let frameAgeMs = status.lastFrameMonotonicMs.map { nowMonotonicMs - $0 }
        if status.finished {
            errors.append("recording has stopped")
        } else if let frameAgeMs, frameAgeMs > Self.stalledAfterMs {
            errors.append("no frame for \(frameAgeMs) ms" + (status.sourceError.map { ": \($0)" } ?? ""))
        } else if frameAgeMs == nil && uptimeMs > 10_000 {
            errors.append("no frame since start" + (status.sourceError.map { ": \($0)" } ?? ""))
        }
        let writable = access(services.store.directory.path, W_OK) == 0
        if !writable { errors.append("store directory \(services.store.directory.path) is not writable") }
        if let storeError = status.storeError { errors.append("store: \(storeError)") }
        if uplink.phase == .waiting { warnings.append("uplink not connected: \(uplink.lastError ?? "retrying")") }
        let privacy = services.privacy.snapshot()
        if privacy.framesFailedClosed > 0 { warnings.append("\(privacy.framesFailedClosed) frames fully masked after detection failures") }

        level = !errors.isEmpty ? .error : !warnings.isEmpty ? .degraded : .ok
        json = .object([
            "status": .string(level.rawValue),
            "timestamp": .number(Double(WallClock.nowMs()) / 1000),
            "uptime": .number(Double(uptimeMs) / 1000),
            "recording": .bool(status.recording && !status.finished),
            "lastFrameAgeMs": frameAgeMs.map { .number(Double($0)) } ?? .null,
            "store": .object([
                "usedBytes": .number(Double(usage.usedBytes)),
                "capBytes": .number(Double(usage.capBytes)),
                "chunks": .number(Double(usage.chunkCount)),
                "writable": .bool(writable),
            ]),
            "uplink": .string(uplink.phase.rawValue),
            "problems": .array((errors + warnings).map { .string($0) }),
            "protocols": .array([.string("ws")]),
        ])
    }
}
