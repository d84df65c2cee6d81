/// Decides what each search of a delay line looks at, and when a frame waits for a later
/// search instead.
///
/// A search looks only where the picture changed since searches last looked
/// (`SearchedPicture`): where the picture is still, at nothing, so a still scene costs no
/// search; where a few parts changed, at a few small regions around them
/// (`ChangedRegionPlanner`), so a walking person costs a small one; where much changed, at
/// `SearchPlan`'s turn (the whole frame or an edge window), and on every
/// `busySearchStride`-th frame only (and no further apart than `busySearchSpanMs`): the
/// frames between wait for it. Allocates nothing per frame once the frame size is known.
final class SearchScheduler {
    /// What a frame's search must look at.
    private enum NextSearch {
        /// Nothing changed where searches looked (or only under fresh masks).
        case nothing
        /// A few small regions around what changed.
        case changed(SearchRegions)
        /// Much changed: `SearchPlan`'s turn.
        case turn

        var isTurn: Bool {
            if case .turn = self { return true }
            return false
        }
    }

    let settings: DelayLineMasker.Settings
    let frameWidth: Int
    let frameHeight: Int
    /// The last frame handed over for a search (or found to need none).
    private(set) var lastSubmitted = -1
    /// Its capture time: the frame itself may have left the line by the next push.
    private(set) var lastSubmittedMs = Int64.min / 2
    /// Frames that needed no search: nothing changed where searches had looked.
    private(set) var framesUnchanged = 0
    /// The last frame searched in its turn (much changed), and the frame left for the next
    /// search by `busySearchStride`, if any.
    private var lastBusySearch = Int.min / 2
    private var lastBusySearchMs = Int64.min / 2
    private var waitingForBusySearch: Int?
    private var plan: SearchPlan
    /// What searches have looked at, block by block, and the regions that need a search.
    private let searchedPicture = SearchedPicture()
    private var changedBlocks: [Bool] = []
    private var planner: ChangedRegionPlanner
    /// The faces tracked in the frame being planned (the masks of those found lately): a
    /// changed region that touches one searches it whole.
    private var trackedFaces: [PixelRect] = []

    init(frameWidth: Int, frameHeight: Int, settings: DelayLineMasker.Settings) {
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.settings = settings
        plan = SearchPlan(width: frameWidth, height: frameHeight, detectionWidth: settings.minimumRegionWidth)
        planner = ChangedRegionPlanner(frameWidth: frameWidth, frameHeight: frameHeight, detectionWidth: settings.minimumRegionWidth)
        trackedFaces.reserveCapacity(64)
    }

    /// The frame to search next: the newest held, or with `searchesEveryFrame` the oldest
    /// not yet searched.
    func frameToSearch(newest: Int) -> Int {
        settings.searchesEveryFrame ? lastSubmitted + 1 : newest
    }

    /// The frame to hand to detection for frame `number`, and what its search must look at
    /// (nothing: the frame needs no search and counts as searched); nil when, with
    /// `mayWait`, a busy frame too soon after the last busy search is left for a later one.
    /// What it returns counts as searched at once (`taken`). `tracks` are the faces tracked.
    func search(_ number: Int, mayWait: Bool, in frames: some HeldFrames, tracks: [FaceTrack]) -> (frame: Int, regions: SearchRegions)? {
        var number = number
        var next = nextSearch(for: number, in: frames, tracks: tracks)
        let strided = settings.searchesChangedRegions && !settings.searchesEveryFrame
        // Within the stride in number and in time: a frame the source sent after a gap (frames
        // it lost) is searched itself.
        if strided, next.isTurn, mayWait, number - lastBusySearch < settings.busySearchStride,
           frames.captureTimeMs(of: number) - lastBusySearchMs <= settings.busySearchSpanMs
        {
            waitingForBusySearch = waitingForBusySearch ?? number
            return nil
        }
        if let waiting = waitingForBusySearch, waiting >= frames.oldest, waiting < number {
            // Only a busy search of a later frame stands in for the frame left waiting: what
            // changed there may be gone from a later one (a flash), where a small or no search
            // would not look. Otherwise the waiting frame is searched itself.
            if !next.isTurn {
                number = waiting
                next = nextSearch(for: waiting, in: frames, tracks: tracks)
            }
        }
        waitingForBusySearch = nil
        lastSubmitted = number
        lastSubmittedMs = frames.captureTimeMs(of: number)
        let regions = taken(next, in: number, of: frames)
        if regions.isEmpty { framesUnchanged += 1 }
        return (number, regions)
    }

    /// Forgets what searches looked at (a search failed): every block is searched again.
    func forgetSearches() {
        searchedPicture.reset()
    }

    /// What the search of frame `number` must look at. Where the picture is still (a fixed
    /// camera's background), only the blocks that changed since searches last looked at
    /// them, in a few small regions (`ChangedRegionPlanner`), or nothing; where much changed,
    /// `SearchPlan`'s turn (the whole frame, or an edge window). Changes nothing but scratch
    /// buffers: `taken` commits to it.
    private func nextSearch(for number: Int, in frames: some HeldFrames, tracks: [FaceTrack]) -> NextSearch {
        guard !settings.searchesEveryFrame, settings.searchesChangedRegions else { return .turn }
        let captureTimeMs = frames.captureTimeMs(of: number)
        var changedCount = searchedPicture.changedBlocks(
            in: frames.thumbnail(of: number), capturedAtMs: captureTimeMs, into: &changedBlocks)
        // A face missed once after its hold is looked for again at once, changed or not: its
        // track ends only on a second miss, and a still picture would never bring one.
        for track in tracks where track.frameNumber == number && track.missesAfterHold > 0 {
            changedCount += searchedPicture.flag(blocksTouching: track.tracked.box, in: &changedBlocks)
        }
        guard changedCount > 0 else { return .nothing }
        // What a face found lately is masked with in this frame needs no search for itself:
        // what changed only under the mask leaves masked (and is searched once the mask moves
        // off it). But a change beside a mask searches the mask's area with it: a face that
        // appears half behind another's mask is seen whole. A face not found for half its hold
        // is searched whole, so that it is let go once gone.
        trackedFaces.removeAll(keepingCapacity: true)
        for track in tracks where track.frameNumber == number {
            if captureTimeMs - track.lastSeenMs > settings.holdMs / 2 {
                trackedFaces.append(track.tracked.box)
            } else {
                let mask = track.tracked.box.grown(byFractionPerSide: settings.marginPerSide + track.tracked.growth)
                changedCount -= searchedPicture.unflag(blocksInside: mask, in: &changedBlocks)
                trackedFaces.append(mask)
            }
        }
        guard changedCount > 0 else { return .nothing }
        guard let regions = planner.regions(changed: changedBlocks, in: searchedPicture, trackedFaces: trackedFaces) else {
            return .turn
        }
        return .changed(regions)
    }

    /// The regions `next` searches in frame `number`. The searched picture takes them in as
    /// soon as they are handed over: the next frame's change is measured against them.
    private func taken(_ next: NextSearch, in number: Int, of frames: some HeldFrames) -> SearchRegions {
        switch next {
        case .nothing:
            return .nothing
        case .changed(let regions):
            for index in 0..<regions.count {
                searchedPicture.record(
                    searchOf: regions[index].rect, in: frames.thumbnail(of: number), capturedAtMs: frames.captureTimeMs(of: number))
            }
            return regions
        case .turn:
            lastBusySearch = number
            lastBusySearchMs = frames.captureTimeMs(of: number)
            var coverage = settings.searchesEveryFrame ? .whole : plan.nextCoverage(wholeNeeded: false)
            // An edge window's turn leaves the rest of the frame to later turns: where something
            // changed outside the window (a face that popped up there), or where what changed is
            // not known (no changed regions), the frame is searched whole, at half scale or finer
            // (`SearchPlan`): no frame leaves before a search that sees the smallest face held
            // has looked at all that changed in it (issue 60).
            if case .edgeWindow = coverage, let window = plan.region(for: coverage),
               !settings.searchesChangedRegions || searchedPicture.flagsBlock(outside: window, in: changedBlocks) {
                coverage = .whole
            }
            let regions = plan.regions(for: coverage, width: frameWidth, height: frameHeight)
            if settings.searchesChangedRegions {
                let region = plan.region(for: coverage) ?? PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight)
                searchedPicture.record(
                    searchOf: region, in: frames.thumbnail(of: number), capturedAtMs: frames.captureTimeMs(of: number))
            }
            return regions
        }
    }
}
