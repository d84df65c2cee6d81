/// Time ranges lost from the ring before the archive had them, merged where they touch and
/// bounded in number (the oldest go first), so a fleet fetch can name those gaps.
struct EvictedRanges: Sendable, Equatable {
    static let kept = 100
    /// Ranges closer than this are one: consecutive chunks are a frame interval apart.
    static let joinMs: Int64 = 2_000

    private(set) var ranges: [NodeRecord.Extent] = []

    init(_ ranges: [NodeRecord.Extent] = []) {
        for range in ranges { add(startMs: range.firstMs, endMs: range.lastMs) }
    }

    mutating func add(startMs: Int64, endMs: Int64) {
        if let last = ranges.last, startMs <= last.lastMs + Self.joinMs, endMs >= last.firstMs - Self.joinMs {
            ranges[ranges.count - 1] = NodeRecord.Extent(firstMs: min(last.firstMs, startMs), lastMs: max(last.lastMs, endMs))
        } else {
            ranges.append(NodeRecord.Extent(firstMs: startMs, lastMs: endMs))
        }
        if ranges.count > Self.kept { ranges.removeFirst(ranges.count - Self.kept) }
    }
}
