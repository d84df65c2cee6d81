/// How the edge server's clock stands against the node's, from the bursts measured so far.
public struct EdgeClockEstimate: Sendable, Equatable {
    public enum Quality: String, Sendable {
        case excellent, good, poor

        /// The tiers of the phone clients AllSpark grew from, applied to the uncertainty.
        init(uncertaintyMs: Double) {
            self = uncertaintyMs < 3 ? .excellent : uncertaintyMs < 10 ? .good : .poor
        }
    }

    /// The newest burst.
    public let latest: ClockBurst
    /// Change of the offset per second of node time, by least squares over the recent
    /// bursts; nil until there are enough of them.
    public let driftMsPerS: Double?
    public let bursts: Int
    /// The edge server's health URL the samples came from.
    public let server: String

    public var offsetMs: Double { latest.offsetMs }
    public var uncertaintyMs: Double { latest.uncertaintyMs }
    public var quality: Quality { Quality(uncertaintyMs: uncertaintyMs) }

    /// The offset carried forward to `nodeMs` by the measured drift.
    public func offsetMs(atNodeMs nodeMs: Double) -> Double {
        latest.offsetMs + (driftMsPerS ?? 0) * (nodeMs - latest.atMs) / 1000
    }

    /// The node-time range an edge-time range stands for, widened by the uncertainty so
    /// that no frame the asker meant is left out.
    public func nodeRange(edgeStartMs: Int64, edgeEndMs: Int64) -> (startMs: Int64, endMs: Int64, offsetMs: Double) {
        let offset = offsetMs(atNodeMs: Double(edgeEndMs) - latest.offsetMs)
        let start = (Double(edgeStartMs) - offset - uncertaintyMs).rounded(.down)
        let end = (Double(edgeEndMs) - offset + uncertaintyMs).rounded(.up)
        return (Int64(max(0, start)), Int64(max(0, end)), offset)
    }

    /// Why the edge server's clock disagrees with the node's more than the limits allow.
    public func problems(offsetLimitMs: Double, driftLimitMsPerS: Double) -> [String] {
        var found: [String] = []
        if abs(offsetMs) > offsetLimitMs {
            let sign = offsetMs >= 0 ? "+" : ""
            found.append("edge clock: offset \(sign)\(offsetMs.formatted1) ms to the edge server is beyond \(offsetLimitMs.formatted1) ms")
        }
        if let driftMsPerS, abs(driftMsPerS) > driftLimitMsPerS {
            found.append("edge clock: drift \(driftMsPerS.formatted1) ms/s against the edge server is beyond ±\(driftLimitMsPerS.formatted1) ms/s")
        }
        return found
    }

    var json: JSONValue {
        .object([
            "offsetMs": .number(offsetMs),
            "uncertaintyMs": .number(uncertaintyMs),
            "driftMsPerS": driftMsPerS.map { .number($0) } ?? .null,
            "quality": .string(quality.rawValue),
            "bursts": .number(Double(bursts)),
            "samplesUsed": .number(Double(latest.samplesUsed)),
            "lastMeasuredMs": .number(latest.atMs.rounded()),
            "server": .string(server),
        ])
    }
}
