import Foundation

/// How much of the cap holds may take (`videoBufferMaxHeldShare`), and how much a set of
/// holds takes: the chunks they keep, plus what the part of them still to come will record
/// at the current bitrate. Held bytes count toward the cap, so a share under 1 leaves
/// recording room whatever is held.
public struct HoldShareBudget: Sendable, Equatable {
    public let capBytes: Int64
    public let share: Double
    /// Bytes per ms the camera has recorded lately (0 before any chunk: nothing to go by).
    public let bytesPerMs: Double

    public init(capBytes: Int64, share: Double, bytesPerMs: Double) {
        self.capBytes = capBytes
        self.share = share
        self.bytesPerMs = bytesPerMs
    }

    /// The budget for a store holding `chunks`, its bitrate read from the newest of them.
    public init(capBytes: Int64, share: Double, recentChunks chunks: [ChunkRecord]) {
        self.init(capBytes: capBytes, share: share, bytesPerMs: Self.bytesPerMs(of: chunks.suffix(10)))
    }

    public var limitBytes: Int64 { Int64(Double(capBytes) * share) }

    static func bytesPerMs(of chunks: some Collection<ChunkRecord>) -> Double {
        // A chunk of n frames spans n intervals once the last frame's own duration is counted.
        let spanMs = chunks.reduce(0.0) { total, chunk in
            let frameMs = chunk.frameCount > 1 ? Double(chunk.endMs - chunk.startMs) / Double(chunk.frameCount - 1) : 0
            return total + Double(chunk.endMs - chunk.startMs) + frameMs
        }
        guard spanMs > 0 else { return 0 }
        return Double(chunks.reduce(Int64(0)) { $0 + $1.totalBytes }) / spanMs
    }

    /// The bytes `holds` keep of `chunks`, and expect to keep of footage not recorded yet
    /// (anything after the newest chunk's last frame, or after `nowMs` in an empty store).
    public func demand(of holds: [Hold], chunks: [ChunkRecord], nowMs: Int64) -> HoldDemand {
        let recorded = chunks.filter { chunk in holds.contains { $0.covers(chunk) } }.reduce(Int64(0)) { $0 + $1.totalBytes }
        let frontierMs = chunks.map(\.endMs).max() ?? nowMs
        let futureSpans = holds.compactMap { hold -> (Int64, Int64)? in
            let start = max(hold.startMs, frontierMs)
            return start < hold.endMs ? (start, hold.endMs) : nil
        }
        let futureMs = Self.unionLength(futureSpans)
        return HoldDemand(recordedBytes: recorded, expectedBytes: Int64((Double(futureMs) * bytesPerMs).rounded(.up)))
    }

    /// Throws `.overShare` when `hold` together with `holds` would take more than the share.
    /// Returns what `hold` alone keeps.
    public func check(adding hold: Hold, to holds: [Hold], chunks: [ChunkRecord], nowMs: Int64) throws(HoldError) -> HoldDemand {
        let before = demand(of: holds, chunks: chunks, nowMs: nowMs)
        let after = demand(of: holds + [hold], chunks: chunks, nowMs: nowMs)
        let own = demand(of: [hold], chunks: chunks, nowMs: nowMs)
        guard after.totalBytes <= limitBytes else {
            throw .overShare(HoldShareShortfall(
                needed: own, alreadyHeldBytes: before.totalBytes, limitBytes: limitBytes, capBytes: capBytes, share: share,
                overBytes: after.totalBytes - limitBytes))
        }
        return own
    }

    private static func unionLength(_ spans: [(Int64, Int64)]) -> Int64 {
        var total: Int64 = 0
        var reachedMs = Int64.min
        for (start, end) in spans.sorted(by: { $0.0 < $1.0 }) where end > reachedMs {
            total += end - max(start, reachedMs)
            reachedMs = end
        }
        return total
    }
}

/// Bytes a hold keeps: recorded already, and expected for the part still to come.
public struct HoldDemand: Sendable, Equatable {
    public let recordedBytes: Int64
    public let expectedBytes: Int64
    public var totalBytes: Int64 { recordedBytes + expectedBytes }
}

/// The numbers in a refusal: what the hold needs, what the share allows, what is taken.
public struct HoldShareShortfall: Sendable, Equatable, CustomStringConvertible {
    public let needed: HoldDemand
    public let alreadyHeldBytes: Int64
    public let limitBytes: Int64
    public let capBytes: Int64
    public let share: Double
    /// How far past the limit the holds would go with this one.
    public let overBytes: Int64

    public var description: String {
        "the hold needs \(Self.mib(needed.totalBytes)) (\(Self.mib(needed.recordedBytes)) recorded, \(Self.mib(needed.expectedBytes)) expected at the current bitrate for the part still to come), "
            + "but holds may take at most \(Self.mib(limitBytes)) (videoBufferMaxHeldShare \(share) of the \(Self.mib(capBytes)) cap) and \(Self.mib(alreadyHeldBytes)) are held already: "
            + "it is \(Self.mib(overBytes)) over; shorten it, release another hold, or raise videoBufferMaxMB or videoBufferMaxHeldShare"
    }

    static func mib(_ bytes: Int64) -> String { String(format: "%.2f MiB", Double(bytes) / 1_048_576) }
}
