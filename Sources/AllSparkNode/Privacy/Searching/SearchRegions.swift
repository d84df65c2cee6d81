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

    /// The finest scale (detector input pixels per frame pixel) at which one region held all
    /// of `box` (the part of a face inside the frame); nil when none did: only a region that
    /// held it whole can have missed the face there, as a net does not find half a face.
    /// `detectionWidth` is the detector's widest input, which caps each region's scale.
    func finestScale(holdingWhole box: PixelRect, frameWidth: Int, detectionWidth: Int) -> Double? {
        if isWholeFrame { return Region.scale(ofWidth: frameWidth, asked: nil, detectionWidth: detectionWidth) }
        return finestScale(detectionWidth: detectionWidth) { $0.contains(box) }
    }

    /// The finest scale at which a region searched any part of `box` (the whole frame's when none did).
    func finestScale(touching box: PixelRect, frameWidth: Int, detectionWidth: Int) -> Double {
        finestScale(detectionWidth: detectionWidth) { $0.intersection(box).area > 0 }
            ?? Region.scale(ofWidth: frameWidth, asked: nil, detectionWidth: detectionWidth)
    }

    /// The finest scale among the regions whose rect meets `condition`; nil when none does.
    private func finestScale(detectionWidth: Int, where condition: (PixelRect) -> Bool) -> Double? {
        var finest: Double?
        for index in 0..<count where condition(self[index].rect) {
            finest = max(finest ?? 0, self[index].inputScale(detectionWidth: detectionWidth))
        }
        return finest
    }
}

extension SearchRegions.Region {
    /// Detector input pixels per frame pixel this region is searched at (`FaceNetSettings.inputSize`).
    func inputScale(detectionWidth: Int) -> Double {
        Self.scale(ofWidth: rect.width, asked: scale, detectionWidth: detectionWidth)
    }

    /// An asked scale is the detector's (`FaceNetSettings.inputSize`), even above its widest
    /// input (a whole 1080p frame at half scale); otherwise the region is shrunk to that input.
    static func scale(ofWidth width: Int, asked: Double?, detectionWidth: Int) -> Double {
        if let asked { return min(asked, 1) }
        return min(1, Double(detectionWidth) / Double(max(width, 1)))
    }
}
