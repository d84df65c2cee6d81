/// What the delay line's searches look at, in turn, so that no part of the frame goes
/// long without a search at a scale that finds its faces.
///
/// No search looks coarser than `coarsestScale` (half scale): the smallest face the node
/// promises to hold (32 px wide at 720p, 48 px at 1080p, `smallestHeldFace`) reaches the
/// net at 16 px or more. A whole 1920 px frame shrunk to the detector's 640 px input saw a
/// 57 px face at 19 px, too small for the net (faces under ~70 px that popped up
/// mid-picture were shown until an edge window came round, issue 60); so a frame wider than
/// twice the detector's input is searched whole at half scale (1080p at 960x544), above the
/// detector's widest input: the cost of a busy 1080p search, 2.3 times a 720p one.
///
/// Where the frame is large enough, whole-frame searches take
/// turns with four edge windows, each 60% of the frame's width and height and of its
/// shape (the detector keeps one input size, hence one net in memory), one in each
/// corner, reaching 10% of their width past the side edges and 5% of their height past
/// the top and bottom. The detector fills the part outside with the inside's mirror image,
/// so a face cut by a side is seen whole, with its reflection, at 1.7 times the whole
/// search's scale. Together the windows cover the frame, and any face up to 14% of the
/// frame's height lies whole in one of them. A frame too small for windows at the detector's scale is searched whole,
/// reaching past its edges in the same way.
///
/// Between those searches, `SearchScheduler` searches only what changed since the last
/// whole-frame search.
struct SearchPlan {
    enum Coverage: Equatable {
        case whole
        case edgeWindow(Int)
    }

    /// The region a whole-frame search looks at (nil: exactly the frame).
    let wholeRegion: PixelRect?
    /// The scale a whole-frame search looks at, where the detector's widest input would
    /// shrink the frame below `coarsestScale` (nil: the detector's own, half scale or finer).
    let wholeScale: Double?
    /// Likewise for the edge windows (1440p's are 1536 px wide: searched at 768, not 640).
    let windowScale: Double?
    /// Left top, right top, left bottom, right bottom: each side is searched every other window.
    let edgeWindows: [PixelRect]
    private var step = 0

    /// No search looks at the picture more coarsely than this (detector input pixels per frame pixel).
    static let coarsestScale = 0.5
    /// The widest face, in detector input pixels, that every search finds: `coarsestScale`
    /// makes it the smallest face held in the frame (`smallestHeldFace`).
    static let smallestFaceAtNet = 16

    /// The smallest face (width, frame pixels) a search of a frame `height` px high can see:
    /// 32 px at 720p, 48 px at 1080p (a 16 px face at the net, at half scale or, for frames
    /// smaller than 720p, the frame's own scale; at least 1/22.5 of the frame's height above it).
    static func smallestHeldFace(height: Int) -> Int {
        max(Int((Double(smallestFaceAtNet) / coarsestScale).rounded()), Int((Double(height) / 22.5).rounded()))
    }

    static let windowShare = 0.6
    static let reachPastSide = 0.1
    static let reachPastTopAndBottom = 0.05

    init(width: Int, height: Int, detectionWidth: Int) {
        wholeScale = Double(detectionWidth) / Double(max(width, 1)) < Self.coarsestScale ? Self.coarsestScale : nil
        let windowWidth = Self.even(Double(width) * Self.windowShare)
        let windowHeight = Self.even(Double(height) * Self.windowShare)
        windowScale = Double(detectionWidth) / Double(max(windowWidth, 1)) < Self.coarsestScale ? Self.coarsestScale : nil
        guard windowWidth >= detectionWidth, windowHeight >= 2 else {
            edgeWindows = []
            let reachX = Self.even(Double(width) * Self.reachPastSide / 2)
            let reachY = Self.even(Double(height) * Self.reachPastSide / 2)
            wholeRegion = PixelRect(x: -reachX, y: -reachY, width: width + 2 * reachX, height: height + 2 * reachY)
            return
        }
        wholeRegion = nil
        let reachX = Self.even(Double(windowWidth) * Self.reachPastSide)
        let reachY = Self.even(Double(windowHeight) * Self.reachPastTopAndBottom)
        let left = -reachX
        let right = width - windowWidth + reachX
        let top = -reachY
        let bottom = height - windowHeight + reachY
        edgeWindows = [(left, top), (right, top), (left, bottom), (right, bottom)].map {
            PixelRect(x: $0.0, y: $0.1, width: windowWidth, height: windowHeight)
        }
    }

    /// The turns: whole, two windows, whole, the other two windows. Whole-frame searches
    /// stay frequent because the changed-region searches measure change against them.
    /// `wholeNeeded` starts the turns again at a whole-frame search.
    mutating func nextCoverage(wholeNeeded: Bool) -> Coverage {
        if wholeNeeded { step = 0 }
        guard !edgeWindows.isEmpty else { return .whole }
        defer { step = (step + 1) % 6 }
        switch step {
        case 0, 3: return .whole
        case 1, 2: return .edgeWindow(step - 1)
        default: return .edgeWindow(step - 2)
        }
    }

    /// The region to search for `coverage`, in frame pixels (nil: exactly the frame).
    func region(for coverage: Coverage) -> PixelRect? {
        switch coverage {
        case .whole: return wholeRegion
        case .edgeWindow(let index): return edgeWindows[index]
        }
    }

    /// What a search of `coverage` looks at in a `width` x `height` frame: the whole frame
    /// at half scale or finer, or an edge window.
    func regions(for coverage: Coverage, width: Int, height: Int) -> SearchRegions {
        switch coverage {
        case .whole:
            if let wholeScale {
                return SearchRegions(wholeRegion ?? PixelRect(x: 0, y: 0, width: width, height: height), scale: wholeScale)
            }
            return wholeRegion.map { SearchRegions($0) } ?? .wholeFrame
        case .edgeWindow(let index):
            return SearchRegions(edgeWindows[index], scale: windowScale)
        }
    }

    private static func even(_ value: Double) -> Int { Int(value.rounded()) & ~1 }
}
