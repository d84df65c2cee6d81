/// What one search looks at: nothing, the whole frame, or up to `capacity` regions, each
/// with the scale it is searched at. A value of fixed size, so handing it to the detection
/// thread allocates nothing.
struct SearchRegions: Sendable {
    struct Region: Sendable, Equatable {
        /// Frame pixels; it may reach past the frame's edges (`FaceNetDetector` mirrors there).
        var rect: PixelRect
        /// Detector input pixels per frame pixel; nil for the detector's own choice.
        var scale: Double?
    }

    static let capacity = 4
    static let nothing = SearchRegions(wholeFrame: false)
    static let wholeFrame = SearchRegions(wholeFrame: true)

    /// The whole frame, as the detector searches it by itself.
    let isWholeFrame: Bool
    private(set) var count = 0
    private var storage: (Region, Region, Region, Region)

    private init(wholeFrame: Bool) {
        isWholeFrame = wholeFrame
        let none = Region(rect: PixelRect(x: 0, y: 0, width: 0, height: 0), scale: nil)
        storage = (none, none, none, none)
    }

    init(_ rect: PixelRect, scale: Double? = nil) {
        self.init(wholeFrame: false)
        append(Region(rect: rect, scale: scale))
    }

    /// A search of nothing: the frame is as the searches last saw it.
    var isEmpty: Bool { !isWholeFrame && count == 0 }

    mutating func append(_ region: Region) {
        precondition(!isWholeFrame && count < Self.capacity, "search regions are full")
        switch count {
        case 0: storage.0 = region
        case 1: storage.1 = region
        case 2: storage.2 = region
        default: storage.3 = region
        }
        count += 1
    }

    subscript(index: Int) -> Region {
        precondition(index >= 0 && index < count, "search region \(index) of \(count)")
        switch index {
        case 0: return storage.0
        case 1: return storage.1
        case 2: return storage.2
        default: return storage.3
        }
    }

    /// Whether one region held all of `box` (the part of a face inside the frame): only
    /// then can the search have missed the face there; a net does not find half a face.
    func lookedWhole(at box: PixelRect) -> Bool {
        isWholeFrame || (0..<count).contains { self[$0].rect.contains(box) }
    }
}
