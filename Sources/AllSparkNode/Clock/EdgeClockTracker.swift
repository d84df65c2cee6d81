/// Keeps the recent bursts against one edge server and turns them into an estimate.
public struct EdgeClockTracker: Sendable {
    /// Bursts the drift is fitted over (ten minutes at the default interval).
    static let burstsKept = 10
    /// Bursts needed before a drift is stated.
    static let burstsForDrift = 3

    public let server: String
    private(set) var bursts: [ClockBurst] = []
    private var burstCount = 0

    public init(server: String) {
        self.server = server
    }

    public mutating func add(_ burst: ClockBurst) {
        bursts.append(burst)
        if bursts.count > Self.burstsKept { bursts.removeFirst(bursts.count - Self.burstsKept) }
        burstCount += 1
    }

    public var estimate: EdgeClockEstimate? {
        guard let latest = bursts.last else { return nil }
        return EdgeClockEstimate(latest: latest, driftMsPerS: driftMsPerS, bursts: burstCount, server: server)
    }

    /// Least-squares slope of offset against node time, in ms per second.
    var driftMsPerS: Double? {
        guard bursts.count >= Self.burstsForDrift else { return nil }
        let meanTime = bursts.map(\.atMs).reduce(0, +) / Double(bursts.count)
        let meanOffset = bursts.map(\.offsetMs).reduce(0, +) / Double(bursts.count)
        var covariance = 0.0
        var variance = 0.0
        for burst in bursts {
            covariance += (burst.atMs - meanTime) * (burst.offsetMs - meanOffset)
            variance += (burst.atMs - meanTime) * (burst.atMs - meanTime)
        }
        guard variance > 0 else { return nil }
        return covariance / variance * 1000
    }
}
