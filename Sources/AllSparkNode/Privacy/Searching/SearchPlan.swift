/// What the delay line's searches look at, in turn, so that no part of the frame goes
/// long without a search at a scale that finds its faces.
///
/// A whole-frame search shrinks a 1920 px frame three times to the detector's 640 px
/// input: a face 57 px wide is seen at 19 px, and half a face at the frame's edge is
/// barely a face at all. So where the frame is large enough, whole-frame searches take
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
    /// Left top, right top, left bottom, right bottom: each side is searched every other window.
    let edgeWindows: [PixelRect]
    private var step = 0

    static let windowShare = 0.6
    static let reachPastSide = 0.1
    static let reachPastTopAndBottom = 0.05

    init(width: Int, height: Int, detectionWidth: Int) {
        let windowWidth = Self.even(Double(width) * Self.windowShare)
        let windowHeight = Self.even(Double(height) * Self.windowShare)
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

    private static func even(_ value: Double) -> Int { Int(value.rounded()) & ~1 }
}
