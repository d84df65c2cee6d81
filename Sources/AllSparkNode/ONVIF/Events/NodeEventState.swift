/// The node's event properties at one moment: motion, the recording job, storage, the
/// camera's signal and detection keeping up, read as `/api/health` reads them.
struct NodeEventState: Equatable, Sendable {
    var values: [EventTopic: Bool]

    /// How recent a wait for detection still counts as detection behind.
    static let detectionBehindSeconds = 10.0

    static func read(services: NodeServices, motion: Bool, nowMonotonicMs: Int64 = WallClock.monotonicMs()) -> NodeEventState {
        let status = services.recorder.status
        let uptimeMs = nowMonotonicMs - services.startedAtMonotonicMs
        let stalled = status.lastFrameMonotonicMs.map { nowMonotonicMs - $0 > HealthReport.stalledAfterMs } ?? (uptimeMs > 10_000)
        let sourceFailed = status.sourceError != nil && !status.recording
        return NodeEventState(values: [
            .motion: motion,
            .recordingJob: status.recording && !status.finished,
            .storageFailure: services.store.availabilityProblem() != nil || status.storeError != nil,
            .signalLoss: !status.finished && (stalled || sourceFailed),
            .detectionBehind: services.privacy.snapshot().waitedForDetection(withinSeconds: detectionBehindSeconds),
        ])
    }
}
