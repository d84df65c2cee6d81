import Testing
@testable import AllSparkNode

/// The NTP-style arithmetic on given samples: offsets, bounds, outliers, drift, mapping.
struct ClockEstimateTests {
    /// A sample against a server whose clock is `offsetMs` ahead, with the delay split as given.
    private func sample(at sentMs: Double, offsetMs: Double, outboundMs: Double, returnMs: Double) -> ClockSample {
        ClockSample(sentMs: sentMs, receivedMs: sentMs + outboundMs + returnMs, serverMs: sentMs + outboundMs + offsetMs)
    }

    @Test("a burst keeps the fastest round trips; every asymmetric delay stays within the stated uncertainty")
    func burstBoundsTheOffset() throws {
        let delays: [(Double, Double)] = [(1, 9), (40, 2), (3, 4), (2, 2), (30, 30), (6, 1), (1, 1), (80, 5)]
        let samples = delays.enumerated().map { index, delay in
            sample(at: 1_000_000 + Double(index) * 25, offsetMs: 3200, outboundMs: delay.0, returnMs: delay.1)
        }
        let burst = try #require(ClockBurst(samples: samples))
        #expect(burst.samplesTaken == 8)
        #expect(burst.samplesUsed <= 4, "the slow half is left out")
        #expect(abs(burst.offsetMs - 3200) <= burst.uncertaintyMs)
        #expect(burst.uncertaintyMs <= 3.5, "bounded by the kept round trips (≤ 7 ms), not the 85 ms ones")
    }

    @Test("a sample whose bound misses the others' median is dropped as an outlier")
    func outlierIsDropped() throws {
        var samples = (0..<7).map { sample(at: Double($0) * 25, offsetMs: -500, outboundMs: 1, returnMs: 1) }
        // A fast reply carrying a wrong time (a server clock step mid-burst).
        samples.append(ClockSample(sentMs: 200, receivedMs: 200.5, serverMs: 200.25 + 400))
        let burst = try #require(ClockBurst(samples: samples))
        #expect(abs(burst.offsetMs - -500) < 0.01)
        #expect(burst.samplesUsed == 3)
    }

    @Test("no answered sample, no burst")
    func emptyBurst() {
        #expect(ClockBurst(samples: []) == nil)
    }

    @Test("drift is the regression slope over the recent bursts, in ms per second, once there are three")
    func driftByRegression() throws {
        var tracker = EdgeClockTracker(server: "http://edge:8080/api/health")
        for index in 0..<2 {
            tracker.add(ClockBurst(atMs: Double(index) * 2000, offsetMs: 100 + Double(index) * 10, uncertaintyMs: 0.5))
        }
        #expect(tracker.estimate?.driftMsPerS == nil)
        for index in 2..<14 {
            let noise = index % 2 == 0 ? 0.3 : -0.3
            tracker.add(ClockBurst(atMs: Double(index) * 2000, offsetMs: 100 + Double(index) * 10 + noise, uncertaintyMs: 0.5))
        }
        let estimate = try #require(tracker.estimate)
        #expect(abs(try #require(estimate.driftMsPerS) - 5) < 0.05)
        #expect(estimate.bursts == 14)
        #expect(tracker.bursts.count == EdgeClockTracker.burstsKept)
        // Carried forward 2 s past the last burst by the drift.
        #expect(abs(estimate.offsetMs(atNodeMs: 28_000) - (estimate.offsetMs + 10)) < 0.2)
    }

    @Test("an edge-time range maps to node time through the offset, widened by the uncertainty")
    func rangeMapping() {
        let estimate = EdgeClockEstimate(
            latest: ClockBurst(atMs: 1_000_000, offsetMs: 3200.4, uncertaintyMs: 1.5), driftMsPerS: nil, bursts: 1, server: "edge")
        let node = estimate.nodeRange(edgeStartMs: 1_010_000, edgeEndMs: 1_015_000)
        #expect(node.startMs == 1_006_798 && node.endMs == 1_011_802, "outward to whole ms")
        #expect(node.offsetMs == 3200.4)
        #expect(estimate.quality == .excellent)
    }

    @Test("quality tiers and warnings follow the limits")
    func qualityAndProblems() {
        func estimate(offset: Double, uncertainty: Double, drift: Double?) -> EdgeClockEstimate {
            EdgeClockEstimate(latest: ClockBurst(atMs: 0, offsetMs: offset, uncertaintyMs: uncertainty), driftMsPerS: drift, bursts: 3, server: "edge")
        }
        #expect(estimate(offset: 0, uncertainty: 2.9, drift: nil).quality == .excellent)
        #expect(estimate(offset: 0, uncertainty: 9.9, drift: nil).quality == .good)
        #expect(estimate(offset: 0, uncertainty: 10, drift: nil).quality == .poor)
        #expect(estimate(offset: 49, uncertainty: 1, drift: 1.9).problems(offsetLimitMs: 50, driftLimitMsPerS: 2).isEmpty)
        let problems = estimate(offset: -51, uncertainty: 1, drift: -2.5).problems(offsetLimitMs: 50, driftLimitMsPerS: 2)
        #expect(problems.count == 2)
        #expect(problems[0].contains("-51.0 ms") && problems[1].contains("-2.5 ms/s"))
    }

    @Test("the kernel clock rule: unsynchronised or a large error bound is a problem")
    func kernelClockRule() {
        let unsynced = KernelClock(kernelState: "error", synchronized: false, estimatedErrorMs: 16000, maximumErrorMs: 16000)
        #expect(unsynced.problem(maximumErrorLimitMs: 100, synchronizationRequired: true)?.contains("not synchronised") == true)
        #expect(unsynced.problem(maximumErrorLimitMs: 100, synchronizationRequired: false) == nil)
        let loose = KernelClock(kernelState: "ok", synchronized: true, estimatedErrorMs: 40, maximumErrorMs: 250.5)
        #expect(loose.problem(maximumErrorLimitMs: 100, synchronizationRequired: true)?.contains("250.5 ms") == true)
        #expect(loose.problem(maximumErrorLimitMs: 300, synchronizationRequired: true) == nil)
    }

    @Test("the machine's own kernel clock can be read")
    func readsTheKernelClock() throws {
        let clock = try #require(KernelClock.read())
        #expect(["ok", "insert", "delete", "leap", "wait", "error"].contains(clock.kernelState))
        #expect(clock.maximumErrorMs >= 0 && clock.estimatedErrorMs >= 0)
        if clock.kernelState == "error" { #expect(!clock.synchronized, "TIME_ERROR is never reported as synchronised") }
    }
}

/// The uplink's reconnect schedule.
struct ReconnectBackoffTests {
    @Test("waits are drawn between half and all of a ceiling that doubles from 1 s to 30 s")
    func scheduleDoublesToTheCap() {
        var backoff = ReconnectBackoff()
        let ceilings: [Double] = [1, 2, 4, 8, 16, 30, 30, 30]
        for ceiling in ceilings {
            var longest = backoff
            var shortest = backoff
            #expect(seconds(longest.nextDelay(random: 1)) == ceiling)
            #expect(seconds(shortest.nextDelay(random: 0)) == ceiling / 2)
            _ = backoff.nextDelay()
        }
        #expect(backoff.failures == ceilings.count)
    }

    @Test("a connection that stayed up starts the schedule over; a short one does not")
    func stableConnectionResets() {
        var backoff = ReconnectBackoff()
        for _ in 0..<4 { _ = backoff.nextDelay() }
        backoff.connectionEnded(after: .seconds(3))
        #expect(seconds(backoff.nextDelay(random: 1)) == 16)
        backoff.connectionEnded(after: .seconds(12))
        #expect(seconds(backoff.nextDelay(random: 1)) == 1)
    }

    @Test("random waits spread a fleet: 100 nodes' first waits are not in lockstep")
    func fleetIsSpread() {
        let waits = (0..<100).map { _ in
            var backoff = ReconnectBackoff()
            return seconds(backoff.nextDelay())
        }
        #expect(waits.allSatisfy { $0 >= 0.5 && $0 <= 1 })
        #expect(Set(waits.map { ($0 * 100).rounded() }).count > 20)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
