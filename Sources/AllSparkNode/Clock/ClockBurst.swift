/// One burst of samples reduced to an offset, NTP-style: the fastest round trips are kept
/// (queueing only ever adds delay, so they bound the offset best), then a sample whose
/// bound does not contain the median of the kept offsets is dropped as an outlier. The
/// offset is the median of what remains, its uncertainty half the longest round trip among
/// them: every sample used is within that of the true offset, so their median is too.
public struct ClockBurst: Sendable, Equatable {
    /// Node wall-clock time the burst stands for (the midpoint of its samples used).
    public let atMs: Double
    public let offsetMs: Double
    public let uncertaintyMs: Double
    public let samplesUsed: Int
    public let samplesTaken: Int

    /// nil for an empty burst (every request failed).
    public init?(samples: [ClockSample]) {
        let valid = samples.filter { $0.roundTripMs >= 0 }
        guard !valid.isEmpty else { return nil }
        let fastest = valid.sorted { $0.roundTripMs < $1.roundTripMs }.prefix(max(min(3, valid.count), valid.count / 2))
        let median = Self.median(fastest.map(\.offsetMs))
        let agreeing = fastest.filter { abs($0.offsetMs - median) <= $0.roundTripMs / 2 }
        let used = agreeing.isEmpty ? Array(fastest) : agreeing
        atMs = used.map(\.midpointMs).reduce(0, +) / Double(used.count)
        offsetMs = Self.median(used.map(\.offsetMs))
        uncertaintyMs = used.map { $0.roundTripMs / 2 }.max() ?? 0
        samplesUsed = used.count
        samplesTaken = samples.count
    }

    init(atMs: Double, offsetMs: Double, uncertaintyMs: Double, samplesUsed: Int = 1, samplesTaken: Int = 1) {
        self.atMs = atMs
        self.offsetMs = offsetMs
        self.uncertaintyMs = uncertaintyMs
        self.samplesUsed = samplesUsed
        self.samplesTaken = samplesTaken
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
