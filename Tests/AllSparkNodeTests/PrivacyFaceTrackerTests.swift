import Testing

@testable import AllSparkNode

@Suite("Privacy: following faces through the frames held")
struct PrivacyFaceTrackerTests {
    static let width = 640
    static let height = 360

    private func tracker(holdMs: Int64 = 1000, detectionWidth: Int = 640) -> FaceTracker {
        FaceTracker(
            frameWidth: Self.width, frameHeight: Self.height, holdMs: holdMs, detectionWidth: detectionWidth, flow: BoxFlow.Settings())
    }

    /// What a search of frame `number` over the whole frame found.
    private func result(_ number: Int, at captureTimeMs: Int64, found boxes: [PixelRect]) -> DetectionResult {
        DetectionResult(
            frameNumber: number, captureTimeMs: captureTimeMs, regions: .wholeFrame, boxes: boxes, failure: nil, detectionMs: 5)
    }

    @Test("a face found in a frame starts a track, masked in it, carried forward with the picture's motion to the newest frame and back to the oldest")
    func detectionIsCarriedForwardAndBack() throws {
        let frames = try TestHeldFrames()
        let tracker = tracker()
        // The picture moves 4 px right a frame.
        for index in 0..<4 { try frames.push(texturedFrame(width: Self.width, height: Self.height, shiftX: 4 * index), captureTimeMs: Int64(index) * 33) }
        let face = PixelRect(x: 200, y: 120, width: 80, height: 80)

        #expect(tracker.record(result(1, at: 33, found: [face]), in: frames) == 1, "a new face appeared")
        try #require(tracker.tracks.count == 1)
        #expect(tracker.tracks[0].frameNumber == 3)
        #expect(frames.boxes[1] == [TrackedBox(box: face)], "the search's own box, not grown")
        for (number, shift) in [(0, -4), (2, 4), (3, 8)] {
            let carried = try #require(frames.boxes[number].first, "frame \(number) has no box")
            #expect(abs(carried.box.x - (face.x + shift)) <= 1 && abs(carried.box.y - face.y) <= 1, "frame \(number): \(carried.box)")
            #expect(carried.growth > 0)
        }
        #expect(tracker.tracks[0].tracked == frames.boxes[3][0])

        // A frame pushed after is masked by the track.
        try frames.push(texturedFrame(width: Self.width, height: Self.height, shiftX: 16), captureTimeMs: 132)
        tracker.carryTracks(into: 4, in: frames)
        let carried = try #require(frames.boxes[4].first)
        #expect(abs(carried.box.x - (face.x + 12)) <= 1, "\(carried.box)")
        #expect(tracker.tracks[0].frameNumber == 4)

        // Found again: no face appeared, and the box is carried back only to the search before.
        let again = PixelRect(x: face.x + 12, y: face.y, width: 80, height: 80)
        #expect(tracker.record(result(4, at: 132, found: [again]), in: frames) == 0)
        #expect(tracker.tracks.count == 1 && tracker.tracks[0].lastFoundInSearch == 4)
        #expect(frames.boxes[0].count == 1 && frames.boxes[1].count == 2 && frames.boxes[3].count == 2)
    }

    @Test("a face the searches miss stays tracked through the hold and while its region is unchanged, and is dropped once two searches missed it after the hold with its region changed")
    func lostTrackIsDroppedAfterTheHoldWhereTheRegionChanged() throws {
        let frames = try TestHeldFrames()
        let tracker = tracker(holdMs: 300)
        let face = PixelRect(x: 200, y: 120, width: 80, height: 80)
        let still = texturedFrame(width: Self.width, height: Self.height)
        try frames.push(still, captureTimeMs: 0)
        _ = tracker.record(result(0, at: 0, found: [face]), in: frames)

        // Gone at 200 ms (within the hold) and back at 400 ms, unchanged: kept.
        let changed = texturedFrame(width: Self.width, height: Self.height)
        for y in face.y..<face.maxY { for x in face.x..<face.maxX { changed.setLuma(x, y, 20) } }
        for (number, picture) in [(1, changed), (2, still)] {
            try frames.push(picture, captureTimeMs: Int64(number) * 200)
            tracker.carryTracks(into: number, in: frames)
            _ = tracker.record(result(number, at: Int64(number) * 200, found: []), in: frames)
            #expect(tracker.tracks.count == 1, "frame \(number) at \(number * 200) ms")
        }
        // Changed after the hold: missed once, kept; missed again, dropped.
        try frames.push(changed, captureTimeMs: 600)
        tracker.carryTracks(into: 3, in: frames)
        _ = tracker.record(result(3, at: 600, found: []), in: frames)
        #expect(tracker.tracks.count == 1 && tracker.tracks[0].missesAfterHold == 1, "one miss after the hold")
        try frames.push(changed, captureTimeMs: 800)
        tracker.carryTracks(into: 4, in: frames)
        _ = tracker.record(result(4, at: 800, found: []), in: frames)
        #expect(tracker.tracks.isEmpty)
    }

    @Test("a search that did not look at a face cannot lose it")
    func faceOutsideTheSearchedRegionIsKept() throws {
        let frames = try TestHeldFrames()
        let tracker = tracker(holdMs: 0)
        let face = PixelRect(x: 200, y: 120, width: 80, height: 80)
        try frames.push(texturedFrame(width: Self.width, height: Self.height), captureTimeMs: 0)
        _ = tracker.record(result(0, at: 0, found: [face]), in: frames)
        // Plain grey: the face's region has changed.
        try frames.push(TestFrame(width: Self.width, height: Self.height), captureTimeMs: 500)
        tracker.carryTracks(into: 1, in: frames)
        let elsewhere = DetectionResult(
            frameNumber: 1, captureTimeMs: 500, regions: SearchRegions(PixelRect(x: 400, y: 0, width: 240, height: 180), scale: 0.5),
            boxes: [], failure: nil, detectionMs: 2)
        _ = tracker.record(elsewhere, in: frames)
        _ = tracker.record(elsewhere, in: frames)
        #expect(tracker.tracks.count == 1 && tracker.tracks[0].missesAfterHold == 0)
        _ = tracker.record(result(1, at: 500, found: []), in: frames)
        _ = tracker.record(result(1, at: 500, found: []), in: frames)
        #expect(tracker.tracks.isEmpty)
    }

    @Test("a search too coarse to see a face cannot lose it: a small face found by a window outlives whole-frame misses; two misses by the window, or a big face's whole-frame miss and one more, end the track", arguments: [40, 160])
    func coarserSearchCannotLoseASmallFace(faceWidth: Int) throws {
        // A net 213 px wide on a 640 px frame: the scales of a 1080p frame on a 640 px net
        // (a whole frame at 1/3, an edge window 60% of the frame wide at 0.56).
        let frames = try TestHeldFrames()
        let tracker = tracker(holdMs: 0, detectionWidth: 213)
        let face = PixelRect(x: 100, y: 60, width: faceWidth, height: faceWidth)
        let window = SearchRegions(PixelRect(x: 0, y: 0, width: 384, height: 288))
        try frames.push(texturedFrame(width: Self.width, height: Self.height), captureTimeMs: 0)
        _ = tracker.record(
            DetectionResult(frameNumber: 0, captureTimeMs: 0, regions: window, boxes: [face], failure: nil, detectionMs: 5), in: frames)
        try #require(tracker.tracks.count == 1)
        #expect(abs(tracker.tracks[0].foundAtScale - 213.0 / 384.0) < 1e-9)
        // Plain grey: the face's region has changed, and the hold is over.
        try frames.push(TestFrame(width: Self.width, height: Self.height), captureTimeMs: 500)
        tracker.carryTracks(into: 1, in: frames)
        _ = tracker.record(result(1, at: 500, found: []), in: frames)
        // Seen at 13 px the small face may be missed: no miss; at 53 px the big one is not.
        try #require(tracker.tracks.count == 1)
        #expect(tracker.tracks[0].missesAfterHold == (faceWidth == 40 ? 0 : 1), "after the whole frame's miss")
        let windowMiss = DetectionResult(frameNumber: 1, captureTimeMs: 500, regions: window, boxes: [], failure: nil, detectionMs: 5)
        _ = tracker.record(windowMiss, in: frames)
        #expect(tracker.tracks.count == (faceWidth == 40 ? 1 : 0), "after the window's miss")
        _ = tracker.record(windowMiss, in: frames)
        #expect(tracker.tracks.isEmpty, "after the window's second miss")
    }

    @Test("of two tracks that a face found now matches, the one not followed is dropped as a duplicate")
    func duplicateTrackIsDropped() throws {
        let frames = try TestHeldFrames()
        let tracker = tracker()
        let picture = texturedFrame(width: Self.width, height: Self.height)
        try frames.push(picture, captureTimeMs: 0)
        try frames.push(picture, captureTimeMs: 33)
        // Two faces side by side, overlapping too little to be one (IoU 0.23).
        let left = PixelRect(x: 100, y: 100, width: 80, height: 80)
        let right = PixelRect(x: 150, y: 100, width: 80, height: 80)
        #expect(tracker.record(result(0, at: 0, found: [left, right]), in: frames) == 2)
        #expect(tracker.tracks.count == 2)
        // One face between them (IoU 0.52 with each).
        let between = PixelRect(x: 125, y: 100, width: 80, height: 80)
        #expect(tracker.record(result(1, at: 33, found: [between]), in: frames) == 0)
        try #require(tracker.tracks.count == 1)
        #expect(tracker.tracks[0].lastFoundInSearch == 1 && tracker.tracks[0].tracked.box == between)
    }

    @Test("part of a tracked face that a region's side cut is left out; a face beside it is followed")
    func cutPartOfATrackedFaceIsLeftOut() throws {
        let frames = try TestHeldFrames()
        let tracker = tracker()
        let picture = texturedFrame(width: Self.width, height: Self.height)
        let face = PixelRect(x: 200, y: 120, width: 80, height: 80)
        try frames.push(picture, captureTimeMs: 0)
        _ = tracker.record(result(0, at: 0, found: [face]), in: frames)
        try frames.push(picture, captureTimeMs: 33)
        tracker.carryTracks(into: 1, in: frames)
        let region = PixelRect(x: 240, y: 0, width: 320, height: 240)
        let cut = PixelRect(x: 241, y: 120, width: 39, height: 80)
        let beside = PixelRect(x: 360, y: 60, width: 60, height: 60)
        let search = DetectionResult(
            frameNumber: 1, captureTimeMs: 33, regions: SearchRegions(region, scale: 0.5), boxes: [cut, beside], failure: nil,
            detectionMs: 2)
        #expect(tracker.record(search, in: frames) == 1)
        #expect(!frames.boxes[1].contains { $0.box == cut })
        #expect(frames.boxes[1].contains(TrackedBox(box: beside)))
        #expect(tracker.tracks.count == 2)
    }
}
