/// Names every stretch of a node's range that no fetched chunk covers, and why: the node
/// was down, nothing was recorded, the ring evicted it before the archive had it, there is
/// no archive to hold what the ring let go, or a fetch failed. Stretches are cut at every
/// time where the answer can change (now, the ring's and archive's bounds, the node's runs)
/// and each piece is judged by its middle; neighbours with the same answer are joined.
struct GapFinder {
    /// Consecutive chunks are a frame interval apart: shorter holes are not gaps.
    static let toleranceMs: Int64 = 1_000

    struct Context {
        var online: Bool
        var record: NodeRecord?
        /// The ring's extent as the node reports it now, or last did.
        var ring: NodeRecord.Extent?
        var nodeError: String?
        var bucketError: String?
        var unreachable: String?
        var nowMs: Int64
    }

    let context: Context

    func gaps(startMs: Int64, endMs: Int64, fetched: [(Int64, Int64)], failed: [(startMs: Int64, endMs: Int64, error: String)]) -> [FetchReport.Gap] {
        var holes: [(Int64, Int64)] = []
        var cursor = startMs
        for (first, last) in fetched.sorted(by: { $0.0 < $1.0 }) {
            if first - cursor > Self.toleranceMs { holes.append((cursor, min(first, endMs))) }
            cursor = max(cursor, last)
            if cursor >= endMs { break }
        }
        if endMs - cursor > Self.toleranceMs { holes.append((cursor, endMs)) }
        var gaps: [FetchReport.Gap] = []
        for (first, last) in holes where last > first {
            for piece in pieces(first, last, failed: failed) {
                let middle = piece.0 + (piece.1 - piece.0) / 2
                let gap: FetchReport.Gap
                if let failure = failed.first(where: { $0.startMs < piece.1 && $0.endMs > piece.0 }) {
                    gap = FetchReport.Gap(startMs: piece.0, endMs: piece.1, reason: .fetchFailed, detail: failure.error, footageExists: true)
                } else {
                    gap = classify(middle, piece)
                }
                if let previous = gaps.last, previous.endMs == gap.startMs, previous.reason == gap.reason, previous.detail == gap.detail {
                    gaps[gaps.count - 1].endMs = gap.endMs
                } else {
                    gaps.append(gap)
                }
            }
        }
        return gaps
    }

    /// The hole cut at every bound the classification looks at, failed chunks' included.
    private func pieces(_ first: Int64, _ last: Int64, failed: [(startMs: Int64, endMs: Int64, error: String)]) -> [(Int64, Int64)] {
        var cuts: [Int64] = [context.nowMs] + failed.flatMap { [$0.startMs, $0.endMs] }
        for extent in [context.ring, context.record?.archive].compactMap({ $0 }) + (context.record?.evictedBeforeArchive ?? []) {
            cuts += [extent.firstMs, extent.lastMs]
        }
        for run in runs { cuts += [run.startMs, run.lastSeenMs] }
        // A cut closer than the tolerance to another bound would make a piece too short to be a gap.
        var bounds = [first]
        for cut in Set(cuts).sorted() where cut - bounds[bounds.count - 1] > Self.toleranceMs && last - cut > Self.toleranceMs {
            bounds.append(cut)
        }
        bounds.append(last)
        return zip(bounds, bounds.dropFirst()).map { ($0, $1) }
    }

    /// The node's runs; a node answering now is running from its last run's start to now.
    private var runs: [NodeRecord.Run] {
        guard var runs = context.record?.runs, !runs.isEmpty else { return [] }
        if context.online { runs[runs.count - 1].lastSeenMs = context.nowMs }
        return runs
    }

    private func classify(_ middle: Int64, _ piece: (Int64, Int64)) -> FetchReport.Gap {
        func gap(_ reason: FetchReport.Gap.Reason, _ detail: String, exists: Bool = false) -> FetchReport.Gap {
            FetchReport.Gap(startMs: piece.0, endMs: piece.1, reason: reason, detail: detail, footageExists: exists)
        }
        func within(_ extent: NodeRecord.Extent?) -> Bool { extent.map { $0.firstMs <= middle && middle <= $0.lastMs } ?? false }
        if middle >= context.nowMs { return gap(.notRecorded, "after the time of the fetch") }
        if context.record?.evictedBeforeArchive.contains(where: within) == true {
            return gap(.evictedBeforeArchiving, "the ring evicted it before the archive had it")
        }
        let runs = runs
        if !runs.isEmpty {
            if middle < runs[0].startMs { return gap(.notRecorded, "before the node's first recorded run") }
            if !runs.contains(where: { $0.startMs <= middle && middle <= $0.lastSeenMs }) {
                return gap(.nodeDown, "the node was not running then")
            }
        }
        guard let record = context.record else {
            if !context.online { return gap(.nodeDown, "the node does not answer (\(context.unreachable ?? "unreachable")) and has no archive") }
            if let nodeError = context.nodeError { return gap(.fetchFailed, nodeError, exists: true) }
            if let ring = context.ring, middle < ring.firstMs { return gap(.noArchive, "the ring no longer holds it and the node has no archive") }
            return gap(.notRecorded, "the node holds nothing there")
        }
        if let bucketError = context.bucketError { return gap(.fetchFailed, "the bucket could not be read: \(bucketError)", exists: true) }
        if !context.online {
            if within(context.ring), middle > (record.archive?.lastMs ?? .min) {
                return gap(.nodeDown, "held only by the node's ring, not archived before it went down (last seen \(WallClock.iso8601(ms: record.lastSeenMs)))", exists: true)
            }
        } else if let nodeError = context.nodeError, within(context.ring) {
            return gap(.fetchFailed, nodeError, exists: true)
        }
        if let ring = context.ring, middle < ring.firstMs { return gap(.evictedBeforeArchiving, "neither the ring nor the archive holds it") }
        return gap(.notRecorded, "the node was running and recorded nothing there")
    }
}
