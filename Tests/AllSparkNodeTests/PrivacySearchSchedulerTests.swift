import Testing

@testable import AllSparkNode

@Suite("Privacy: what each search looks at, and when")
struct PrivacySearchSchedulerTests {
    static let width = 1280
    static let height = 720

    /// Fine stripes with a 60 px square of luma 250 at each of `squares`.
    private func still(squares: [(x: Int, y: Int)] = []) -> TestFrame {
        let picture = stripedFrame(width: Self.width, height: Self.height)
        for square in squares {
            for y in square.y..<square.y + 60 { for x in square.x..<square.x + 60 { picture.setLuma(x, y, 250) } }
        }
        return picture
    }

    /// A checkerboard of 32 px squares moved 8 px a frame: every block changes, as in a crowd.
    private func busy(_ index: Int) -> TestFrame {
        let picture = TestFrame(width: Self.width, height: Self.height)
        for y in 0..<Self.height {
            for x in 0..<Self.width { picture.setLuma(x, y, ((x + 8 * index) / 32 + y / 32) % 2 == 0 ? 200 : 60) }
        }
        return picture
    }

    private func scheduler(busySearchStride: Int = 2) -> SearchScheduler {
        SearchScheduler(
            frameWidth: Self.width, frameHeight: Self.height, settings: .init(capacity: 8, busySearchStride: busySearchStride))
    }

    /// A schedule whose frame 0, the still picture at 0 ms, was searched (whole).
    private func afterAStillFrame() throws -> (frames: TestHeldFrames, scheduler: SearchScheduler) {
        let frames = try TestHeldFrames()
        let scheduler = scheduler()
        try frames.push(still(), captureTimeMs: 0)
        _ = scheduler.search(0, mayWait: true, in: frames, tracks: [])
        return (frames, scheduler)
    }

    @Test("the first frame is searched whole; a still picture after it needs no search and counts as unchanged")
    func stillPictureNeedsNoSearch() throws {
        let frames = try TestHeldFrames()
        let scheduler = scheduler()
        try frames.push(still(), captureTimeMs: 0)
        let first = try #require(scheduler.search(0, mayWait: true, in: frames, tracks: []))
        #expect(first.frame == 0 && first.regions.isWholeFrame)
        try frames.push(still(), captureTimeMs: 33)
        let second = try #require(scheduler.search(1, mayWait: true, in: frames, tracks: []))
        #expect(second.frame == 1 && second.regions.isEmpty)
        #expect(scheduler.framesUnchanged == 1)
        #expect(scheduler.lastSubmitted == 1)
        #expect(scheduler.frameToSearch(newest: 5) == 5)
    }

    @Test("a busy frame within the stride waits; the next busy frame is searched as the frame's turn")
    func busyFrameWaitsForTheStride() throws {
        let frames = try TestHeldFrames()
        let scheduler = scheduler(busySearchStride: 2)
        try frames.push(busy(0), captureTimeMs: 0)
        #expect(scheduler.search(0, mayWait: true, in: frames, tracks: [])?.regions.isWholeFrame == true)
        try frames.push(busy(1), captureTimeMs: 33)
        #expect(scheduler.search(1, mayWait: true, in: frames, tracks: []) == nil, "frame 1 is within the stride")
        #expect(scheduler.lastSubmitted == 0)
        try frames.push(busy(2), captureTimeMs: 66)
        let turn = try #require(scheduler.search(2, mayWait: true, in: frames, tracks: []))
        // The turn's edge window leaves out change elsewhere: the frame is searched whole.
        #expect(turn.frame == 2 && turn.regions.isWholeFrame)
        // Without leave to wait (the line is full), a busy frame within the stride is searched.
        try frames.push(busy(3), captureTimeMs: 99)
        #expect(scheduler.search(3, mayWait: false, in: frames, tracks: [])?.frame == 3)
    }

    @Test("when the source lost frames, a busy frame next in number but past the stride in time is searched itself")
    func busyFrameAfterAGapIsSearched() throws {
        let frames = try TestHeldFrames()
        let scheduler = scheduler(busySearchStride: 2)
        try frames.push(busy(0), captureTimeMs: 0)
        #expect(scheduler.search(0, mayWait: true, in: frames, tracks: [])?.regions.isWholeFrame == true)
        // The next frame the source delivered came 400 ms later (it lost the 11 between).
        try frames.push(busy(1), captureTimeMs: 400)
        let search = try #require(scheduler.search(1, mayWait: true, in: frames, tracks: []), "frame 1 waited out a 400 ms gap")
        #expect(search.frame == 1 && !search.regions.isEmpty)
        #expect(scheduler.lastSubmitted == 1 && scheduler.lastSubmittedMs == 400)
    }

    @Test("a frame left waiting for a busy search is searched itself when the next frame needs no busy search")
    func waitingFrameSearchedAfterAFlash() throws {
        let (frames, scheduler) = try afterAStillFrame()
        try frames.push(busy(1), captureTimeMs: 33)
        #expect(scheduler.search(1, mayWait: true, in: frames, tracks: []) == nil)
        try frames.push(still(), captureTimeMs: 66)
        let search = try #require(scheduler.search(2, mayWait: true, in: frames, tracks: []))
        #expect(search.frame == 1 && !search.regions.isEmpty, "the flash's frame is searched")
        #expect(scheduler.lastSubmitted == 1)
    }

    @Test("a small change is searched in a small region at half scale around it")
    func smallChangeGivesASmallRegion() throws {
        let (frames, scheduler) = try afterAStillFrame()
        let square = PixelRect(x: 700, y: 300, width: 60, height: 60)
        try frames.push(still(squares: [(square.x, square.y)]), captureTimeMs: 33)
        let search = try #require(scheduler.search(1, mayWait: true, in: frames, tracks: []))
        #expect(search.frame == 1)
        try #require(search.regions.count == 1)
        let region = search.regions[0]
        #expect(region.rect.contains(square) && region.rect.width <= 640 && region.scale == 0.5, "\(region)")
        // What was handed over counts as searched: the same picture again needs nothing.
        try frames.push(still(squares: [(square.x, square.y)]), captureTimeMs: 66)
        #expect(scheduler.search(2, mayWait: true, in: frames, tracks: [])?.regions.isEmpty == true)
    }

    @Test("a change only under the mask of a face found lately needs no search; under one not found for half its hold, the face is searched whole")
    func changeUnderATrackedFace() throws {
        let face = PixelRect(x: 680, y: 290, width: 100, height: 100)
        for (lastSeenMs, searched) in [(Int64(0), false), (Int64(-600), true)] {
            let (frames, scheduler) = try afterAStillFrame()
            try frames.push(still(squares: [(700, 300)]), captureTimeMs: 33)
            let track = FaceTrack(
                tracked: TrackedBox(box: face), frameNumber: 1, lastSeenMs: lastSeenMs, lastFoundInSearch: 0,
                foundAtScale: 0.5, missesAfterHold: 0, signature: RegionSignature(of: face, in: frames.thumbnail(of: 1)))
            let search = try #require(scheduler.search(1, mayWait: true, in: frames, tracks: [track]))
            if searched {
                #expect((0..<search.regions.count).contains { search.regions[$0].rect.contains(face) }, "face last seen at \(lastSeenMs) ms")
            } else {
                #expect(search.regions.isEmpty, "face last seen at \(lastSeenMs) ms")
            }
        }
    }

    @Test("a still picture needs no search, but a face missed once after its hold is searched whole there again at once", arguments: [0, 1])
    func pendingMissIsSearchedInAStillPicture(misses: Int) throws {
        let face = PixelRect(x: 600, y: 200, width: 70, height: 70)
        let (frames, scheduler) = try afterAStillFrame()
        try frames.push(still(), captureTimeMs: 2000)
        let track = FaceTrack(
            tracked: TrackedBox(box: face), frameNumber: 1, lastSeenMs: 0, lastFoundInSearch: 0,
            foundAtScale: 0.5, missesAfterHold: misses, signature: RegionSignature(of: face, in: frames.thumbnail(of: 1)))
        let search = try #require(scheduler.search(1, mayWait: true, in: frames, tracks: [track]))
        if misses == 0 {
            #expect(search.regions.isEmpty)
        } else {
            try #require(search.regions.count == 1)
            let region = search.regions[0]
            #expect(region.rect.contains(face) && (region.scale ?? 0) >= 0.5 && !search.regions.isWholeFrame, "\(region)")
        }
    }

    @Test("after a failed search, what searches looked at is forgotten: a still picture is searched again")
    func forgottenSearchesAreSearchedAgain() throws {
        let (frames, scheduler) = try afterAStillFrame()
        scheduler.forgetSearches()
        try frames.push(still(), captureTimeMs: 33)
        // Every block changed: the frame's turn (not left to wait, as the line is full).
        #expect(scheduler.search(1, mayWait: false, in: frames, tracks: [])?.regions.isWholeFrame == true)
    }
}
