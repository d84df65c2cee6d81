/// When to try the edge server again: a ceiling that starts at 1 s and doubles with each
/// failed attempt up to 30 s, and a wait drawn at random between half the ceiling and all
/// of it, so a fleet whose server restarted does not come back in lockstep. A connection
/// that stayed up for `stableAfter` starts the schedule over.
struct ReconnectBackoff: Sendable {
    static let firstCeiling: Duration = .seconds(1)
    static let maximumCeiling: Duration = .seconds(30)
    static let stableAfter: Duration = .seconds(10)

    /// Failed attempts since the last stable connection.
    private(set) var failures = 0

    /// The ceiling for the wait after the current run of failures.
    var ceiling: Duration {
        let doublings = min(failures, 5)
        return min(Self.firstCeiling * (1 << doublings), Self.maximumCeiling)
    }

    /// Counts a failed attempt (or a connection that did not stay up) and returns the wait before the next.
    mutating func nextDelay(random: Double = Double.random(in: 0...1)) -> Duration {
        let wait = ceiling * (0.5 + 0.5 * random)
        failures += 1
        return wait
    }

    /// A connection stayed up long enough: the next wait starts from the first ceiling.
    mutating func connectionEnded(after uptime: Duration) {
        if uptime >= Self.stableAfter { failures = 0 }
    }
}
