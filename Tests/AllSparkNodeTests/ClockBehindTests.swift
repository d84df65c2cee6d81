import Testing
@testable import AllSparkNode

struct ClockBehindTests {
    private func config(source: String, pace: Bool) -> NodeConfig {
        var config = NodeConfig()
        config.source = source
        config.pace = pace
        return config
    }

    @Test("a recording ending after now means the clock was set back, beyond a small tolerance")
    func clockSetBack() {
        let now: Int64 = 1_800_000_000_000
        let paced = config(source: "testsrc", pace: true)
        let problem = HealthReport.clockBehindProblem(newestRecordingMs: now + 90_500, nowMs: now, config: paced)
        #expect(problem?.hasPrefix("the clock is 90 s behind the newest recording") == true)
        #expect(HealthReport.clockBehindProblem(newestRecordingMs: now + 1500, nowMs: now, config: paced) == nil)
        #expect(HealthReport.clockBehindProblem(newestRecordingMs: now - 60_000, nowMs: now, config: paced) == nil)
        #expect(HealthReport.clockBehindProblem(newestRecordingMs: nil, nowMs: now, config: paced) == nil)
    }

    @Test("an unpaced file runs ahead of the clock by design; a camera follows the clock whatever pace says")
    func unpacedSources() {
        let now: Int64 = 1_800_000_000_000
        let unpacedFile = config(source: "/footage/in.mp4", pace: false)
        #expect(HealthReport.clockBehindProblem(newestRecordingMs: now + 600_000, nowMs: now, config: unpacedFile) == nil)
        let camera = config(source: "/dev/video3", pace: false)
        #expect(HealthReport.clockBehindProblem(newestRecordingMs: now + 600_000, nowMs: now, config: camera) != nil)
    }
}
