/// Keeps the edge guard's bands after the crossing stops.
///
/// Someone who walks in and stops half outside the picture shows no more change at the
/// edge, so `EdgeGuard` stops masking them; yet the searches that find a face cut by the
/// edge (those that look past it with the mirror image: edge windows, changed regions
/// touching a side, a small frame's whole search) come round only every few searches.
/// A band therefore stays masked until a search of a frame at or after its last change has
/// looked past that edge over it, or for `longestHoldMs` at most. Each frame's bands are
/// kept apart (merged only where one contains the other), so that what a search has looked
/// past ends even while the crossing goes on beside it. Fixed capacity; allocates nothing
/// once made.
struct EdgeWatch {
    struct Band: Equatable {
        var box: PixelRect
        /// The last frame whose change at the edge made or renewed this band, and its capture time.
        var lastChange: Int
        var lastChangeMs: Int64
    }

    /// Longer than the turns of `SearchPlan` take on a busy machine (every edge window within
    /// about 12 searches, at 10 searches a second or more).
    static let longestHoldMs: Int64 = 2000
    /// Bands held at most: the crossings at the four edges over the frames between two searches
    /// that look past them. Beyond it, a new band is merged into the band it overlaps most.
    static let capacity = 48

    private(set) var bands: [Band] = []
    let frameWidth: Int
    let frameHeight: Int

    init(frameWidth: Int, frameHeight: Int) {
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        bands.reserveCapacity(Self.capacity)
    }

    /// Takes frame `number`'s bands from `EdgeGuard` and replaces them with every band held
    /// for that frame (they include the new ones).
    mutating func update(frame number: Int, captureMs: Int64, bands guarded: inout [PixelRect]) {
        bands.removeAll { captureMs - $0.lastChangeMs > Self.longestHoldMs }
        for box in guarded {
            guard let merged = bands.firstIndex(where: { $0.box.contains(box) || box.contains($0.box) })
                ?? (bands.count < Self.capacity ? nil : mostOverlapped(by: box))
            else {
                bands.append(Band(box: box, lastChange: number, lastChangeMs: captureMs))
                continue
            }
            bands[merged] = Band(box: bands[merged].box.union(box), lastChange: number, lastChangeMs: captureMs)
        }
        guarded.removeAll(keepingCapacity: true)
        for band in bands { guarded.append(band.box) }
    }

    private func mostOverlapped(by box: PixelRect) -> Int? {
        bands.indices.max { bands[$0].box.intersection(box).area < bands[$1].box.intersection(box).area }
    }

    /// A search of frame `number` looked at `region`: the bands it looked past, changed
    /// last at or before that frame, end.
    mutating func searched(frame number: Int, region: PixelRect) {
        guard !region.isEmpty else { return }
        let (width, height) = (frameWidth, frameHeight)
        bands.removeAll { $0.lastChange <= number && Self.looksPast(region, over: $0.box, frameWidth: width, frameHeight: height) }
    }

    /// Whether `region` reaches past an edge that `band` lies on and covers half of the band.
    private static func looksPast(_ region: PixelRect, over band: PixelRect, frameWidth: Int, frameHeight: Int) -> Bool {
        guard 2 * region.intersection(band).area >= band.area else { return false }
        return (band.x <= 0 && region.x < 0) || (band.maxX >= frameWidth && region.maxX > frameWidth)
            || (band.y <= 0 && region.y < 0) || (band.maxY >= frameHeight && region.maxY > frameHeight)
    }
}
