import Foundation

/// The node's health as `GET /api/health` reports it. Red (503) when capture has stalled
/// or the store cannot take chunks (full disk, vanished, read-only); yellow (degraded, still 200) for problems that do not
/// stop recording.
struct HealthReport {
    enum Level: String { case ok, degraded, error }

    /// No frame for this long while recording is expected means capture has stalled.
    static let stalledAfterMs: Int64 = 3000
    /// A recording ending this far after the node's clock means the clock was set back.
    static let clockBehindToleranceMs: Int64 = 2000
    /// Health stays degraded this long after a frame last waited for detection.
    static let privacyBehindWindowSeconds = 60.0

    let level: Level
    let json: JSONValue
    /// The kernel clock as read for this report (nil when adjtimex failed).
    let clock: KernelClock?

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
        } else if let sourceError = status.sourceError, !status.recording {
            // The source failed and is being retried: red at once, saying why.
            errors.append("source failed: \(sourceError)")
        } else if frameAgeMs == nil && uptimeMs > 10_000 {
            errors.append("no frame since start" + (status.sourceError.map { ": \($0)" } ?? ""))
        }
        // The store checked here at once (vanished, read-only), else what the recorder met (a full disk, a write error).
        let storeProblem = services.store.availabilityProblem()
        if let problem = storeProblem ?? status.storeError { errors.append(problem) }
        if let problem = Self.clockBehindProblem(newestRecordingMs: usage.newestMs, nowMs: WallClock.nowMs(), config: services.live.config) {
            warnings.append(problem)
        }
        if uplink.phase == .waiting { warnings.append("uplink not connected: \(uplink.lastError ?? "retrying")") }
        let config = services.live.config
        clock = KernelClock.read()
        if let problem = clock?.problem(maximumErrorLimitMs: config.clockMaxErrorMs, synchronizationRequired: config.clockSyncRequired) {
            warnings.append(problem)
        }
        if let edgeClock = uplink.edgeClock {
            warnings += edgeClock.problems(offsetLimitMs: config.uplink.clockOffsetLimitMs, driftLimitMsPerS: config.uplink.clockDriftLimitMsPerS)
        }
        let archive = services.archive?.status()
        if let archive { warnings += archive.problems(maxLagSeconds: config.archive.maxLagSeconds) }
        let privacy = services.privacy.snapshot()
        if let reason = services.privacy.weakerDetectorReason { warnings.append("privacy degraded: \(reason)") }
        if let dropMs = status.lastCaptureDropMonotonicMs, nowMonotonicMs - dropMs <= Int64(Self.privacyBehindWindowSeconds * 1000),
           !privacy.waitedForDetection(withinSeconds: Self.privacyBehindWindowSeconds) {
            warnings.append(
                "recording below its frame rate: the source dropped frames the node could not take in time "
                    + "(\(status.framesDropped) so far, the last \((nowMonotonicMs - dropMs) / 1000) s ago): the box is short of CPU; "
                    + "every frame recorded is masked as usual")
        }
        if privacy.waitedForDetection(withinSeconds: Self.privacyBehindWindowSeconds) {
            warnings.append(
                "privacy: detection is behind: frames waited for a search \(privacy.waitsForDetection) times; "
                    + "frames the source could not hold were dropped (\(status.framesDropped) so far), none left unsearched")
        }
        if privacy.framesFailedClosed > 0 { warnings.append("\(privacy.framesFailedClosed) frames fully masked after detection failures") }

        level = !errors.isEmpty ? .error : !warnings.isEmpty ? .degraded : .ok
        json = .object([
            "status": .string(level.rawValue),
            "node": .object(["id": .string(services.identity.id), "name": .string(services.identity.name)]),
            "timestamp": .number(Double(WallClock.nowMs()) / 1000),
            "uptime": .number(Double(uptimeMs) / 1000),
            "recording": .bool(status.recording && !status.finished),
            "lastFrameAgeMs": frameAgeMs.map { .number(Double($0)) } ?? .null,
            "store": .object([
                "usedBytes": .number(Double(usage.usedBytes)),
                "capBytes": .number(Double(usage.capBytes)),
                "chunks": .number(Double(usage.chunkCount)),
                "oldestMs": usage.oldestMs.map { .number(Double($0)) } ?? .null,
                "newestMs": usage.newestMs.map { .number(Double($0)) } ?? .null,
                "writable": .bool(storeProblem == nil),
                "waiting": .bool(status.storeWaiting),
            ]),
            "uplink": .string(uplink.phase.rawValue),
            "archive": .string(archive?.phase.rawValue ?? "off"),
            "clock": clock?.json ?? .null,
            "edgeClock": uplink.edgeClock?.json ?? .null,
            "problems": .array((errors + warnings).map { .string($0) }),
            "protocols": .array([.string("ws")]),
        ])
    }

    /// Says so when the store holds a recording that ends after now: the wall clock was set
    /// back (an RTC-less board booting with a stale time, a manual change), so chunks
    /// recorded now are dated before it and sort, and are evicted, as older. Not checked
    /// for an unpaced file, whose frames run ahead of the clock by design.
    static func clockBehindProblem(newestRecordingMs: Int64?, nowMs: Int64, config: NodeConfig) -> String? {
        let framesFollowTheClock = config.pace || CaptureSource.resolve(config.source).isLive
        guard framesFollowTheClock, let newestRecordingMs, newestRecordingMs - nowMs > clockBehindToleranceMs else { return nil }
        let seconds = (newestRecordingMs - nowMs) / 1000
        return "the clock is \(seconds) s behind the newest recording (was it set back?): "
            + "chunks recorded now are dated before it, so they sort and are evicted as older"
    }
}
