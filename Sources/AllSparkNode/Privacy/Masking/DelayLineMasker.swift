import CFFmpeg

/// Masks live video with a detector too slow to search every frame, without letting a
/// frame out before it is covered. The recorder's privacy pass.
///
/// Each frame is copied into a picture buffer of the delay line's pool (at most
/// `capacity` frames are held), with a small grey thumbnail for tracking. Whenever the detection thread is idle it
/// searches the newest frame, but only where the picture changed since searches last
/// looked (`SearchScheduler`; where much changed, `SearchPlan`'s turn): a still scene
/// costs no search, a walking person a small one. Where much changed,
/// the frame's turn is searched on every `busySearchStride`-th frame only; the frames
/// between wait for it. A frame leaves once a search of a frame `lookbackMs` after
/// it is done (only a search at or after it when its buffer is needed): a face the
/// detector finds late is masked back through every frame still held, to where it came
/// in. It leaves masked with (`FaceTracker`):
/// - the faces of the searches after it while it is held, carried back to it frame by
///   frame along the measured motion of the picture (optical flow, `BoxFlow`): a face
///   that came in between two searches, or that searches found late, is covered from
///   where it entered;
/// - the faces of earlier searches, carried forward the same way (`FaceTrack`): a face
///   the detector misses in some searches stays masked while it was last found less than
///   `holdMs` ago, and for as long after that as its region has not changed (a person
///   sitting still stays masked however long they sit).
/// A carried box grows a little per frame for the error of the motion (more where the
/// motion could not be measured); every box also grows by `marginPerSide`.
///
/// When detection falls behind the frame rate, the frame rate gives way, never the search:
/// a frame that arrives more than `busySearchStride` frames (or `busySearchSpanMs`) after
/// the last one a search looked at (or found nothing to look at in) waits for the search in
/// flight and is searched next, so no frame leaves further from a search than a busy
/// scene's own schedule leaves it. Likewise when the delay line is full and its oldest
/// frame has had no search since: privacy first, a frame never leaves unsearched. The
/// caller waits; a live source then lags and drops the frames it cannot deliver in time (a
/// lower frame rate, counted with the waits); a file is read more slowly.
/// Not thread-safe: one recording thread pushes; detection runs on its own thread.
public final class DelayLineMasker: LiveFrameMasking {
    public let settings: Settings
    public let counters: PrivacyCounters
    public let width: Int
    public let height: Int
    /// Frames searched so far, and times `push` had to wait for detection.
    public private(set) var framesSearched = 0
    public private(set) var waitsForDetection = 0

    private let worker: DetectionWorker
    private let painter: MaskPainter
    private let pictures: PicturePool
    /// Shrinks each frame into its thumbnail: one scratch for all of them.
    private let thumbnailScaler: GreyScaler
    /// Thumbnails not lent to a slot: made as needed, so only as many exist as frames are
    /// held at once, plus the two read after their frame left (see `retireThumbnail`).
    private var spareThumbnails: [LumaThumbnail] = []
    /// Picture buffers and thumbnails made so far (what the delay line holds in memory).
    var picturesMade: Int { pictures.made }
    private(set) var thumbnailsMade = 0
    private var slots: [DelayLineSlot] = []
    /// Frame number of the oldest frame held, and how many are held (slot = number % capacity).
    private(set) var oldest = 0
    private var held = 0
    /// What each search looks at, and when.
    private let scheduler: SearchScheduler
    /// Frames that needed no search: nothing changed where searches had looked.
    public var framesUnchanged: Int { scheduler.framesUnchanged }
    /// Every frame up to this one has had a search at or after it.
    private var searchedThrough = -1
    private let tracker: FaceTracker
    private var painted: [PixelRect] = []
    /// The edge guard's bands, kept until a search has looked past the edge there.
    private var edgeWatch: EdgeWatch
    /// What the edges looked like lately, for the edge guard.
    private var edgeBackground = EdgeBackground()

    /// - Throws: whatever `makeDetectors` throws (a missing model or cascade), or a libav error.
    public init(
        width: Int, height: Int, settings: Settings = Settings(), counters: PrivacyCounters = PrivacyCounters(),
        makeDetectors: @escaping @Sendable () throws -> [any RegionDetector]
    ) throws {
        guard settings.capacity >= 2 else { throw PrivacyError.invalidSettings("delay line of \(settings.capacity) frames") }
        guard settings.holdMs >= 0, settings.lookbackMs >= 0, settings.marginPerSide >= 0, settings.blocksAcross >= 1 else {
            throw PrivacyError.invalidSettings("negative hold or margin, or no mosaic blocks")
        }
        guard settings.busySearchStride >= 1 else {
            throw PrivacyError.invalidSettings("busy search stride \(settings.busySearchStride)")
        }
        self.width = width
        self.height = height
        self.settings = settings
        self.counters = counters
        painter = MaskPainter(style: settings.style, blocksAcross: settings.blocksAcross)
        scheduler = SearchScheduler(frameWidth: width, frameHeight: height, settings: settings)
        tracker = FaceTracker(
            frameWidth: width, frameHeight: height, holdMs: settings.holdMs, detectionWidth: settings.minimumRegionWidth,
            flow: settings.flow)
        edgeWatch = EdgeWatch(frameWidth: width, frameHeight: height)
        pictures = PicturePool(width: width, height: height, capacity: settings.capacity)
        thumbnailScaler = try GreyScaler(finish: .bilinear)
        for _ in 0..<settings.capacity { slots.append(DelayLineSlot()) }
        spareThumbnails.reserveCapacity(settings.capacity)
        worker = try DetectionWorker(makeDetectors: makeDetectors)
        painted.reserveCapacity(64 + EdgeWatch.capacity)
    }

    deinit { worker.stop() }

    /// Copies `picture` into the delay line, then hands every frame that may leave to
    /// `emit`, oldest first.
    public func push(_ picture: YUV420Frame, captureTimeMs: Int64, emit: (MaskedFrame) throws -> Void) throws {
        guard picture.width == width, picture.height == height else {
            throw PrivacyError.invalidSettings("frame \(picture.width)x\(picture.height) in a \(width)x\(height) delay line")
        }
        while held == settings.capacity {
            if let result = worker.takeResultIfDone() {
                record(result)
            } else if worker.isBusy {
                waitsForDetection += 1
                counters.recordWaitForDetection()
                record(worker.waitForResult())
            } else {
                submit(nextToSearch, mayWait: false)
            }
            try release(emit)
        }
        let number = oldest + held
        let slot = slot(of: number)
        // The slot's last frame left `capacity` frames ago: nothing reads its thumbnail now.
        if let stale = slot.giveBackThumbnail() { spareThumbnails.append(stale) }
        try slot.store(
            picture, in: pictures.take(), thumbnail: takeThumbnail(), scaler: thumbnailScaler, captureTimeMs: captureTimeMs,
            flow: settings.flow)
        held += 1
        tracker.carryTracks(into: number, in: self)
        if settings.guardsEdges, number > 0 {
            EdgeGuard.guardedBands(
                from: self.slot(of: number - 1).thumbnail, to: slot.thumbnail, background: &edgeBackground, frameWidth: width,
                frameHeight: height, into: &slot.guardedBands)
            edgeWatch.update(frame: number, captureMs: captureTimeMs, bands: &slot.guardedBands)
        }
        retireThumbnail(of: number - 1)
        if let result = worker.takeResultIfDone() { record(result) }
        if worker.isBusy, !settings.searchesEveryFrame,
           number - scheduler.lastSubmitted > settings.busySearchStride
            || captureTimeMs - scheduler.lastSubmittedMs > settings.busySearchSpanMs
        {
            waitsForDetection += 1
            counters.recordWaitForDetection()
            record(worker.waitForResult())
        }
        if !worker.isBusy { submit(nextToSearch, mayWait: true) }
        try release(emit)
        try awaitSearchInFlight(capturedAtMs: captureTimeMs, emit: emit)
    }

    public func push(_ frame: CapturedFrame, emit: (MaskedFrame) throws -> Void) throws {
        try push(frame.picture, captureTimeMs: frame.captureTimeMs, emit: emit)
    }

    /// Waits for the search in flight while the source's next frame is still far off
    /// (`searchWaitAfterCaptureMs`), and lets out the frames it covers. A recording thread
    /// already behind its source does not wait.
    private func awaitSearchInFlight(capturedAtMs: Int64, emit: (MaskedFrame) throws -> Void) throws {
        let limitMs = settings.searchWaitAfterCaptureMs
        guard limitMs > 0, worker.isBusy else { return }
        let waitMs = min(limitMs, capturedAtMs + limitMs - WallClock.nowMs())
        guard waitMs > 0, let result = worker.waitForResult(milliseconds: Int(waitMs)) else { return }
        record(result)
        try release(emit)
    }

    /// Searches the newest frame if it was not, and lets every frame out.
    public func finish(emit: (MaskedFrame) throws -> Void) throws {
        guard held > 0 else { return }
        if worker.isBusy { record(worker.waitForResult()) }
        while scheduler.lastSubmitted < newest {
            submit(nextToSearch, mayWait: false)
            if worker.isBusy { record(worker.waitForResult()) }
        }
        try release(emit, keepingLookback: false)
    }

    /// The newest frame held, or with `searchesEveryFrame` the oldest not yet searched.
    private var nextToSearch: Int { scheduler.frameToSearch(newest: newest) }

    var newest: Int { oldest + held - 1 }

    private func slot(of number: Int) -> DelayLineSlot { slots[number % settings.capacity] }

    private func takeThumbnail() throws -> LumaThumbnail {
        if let spare = spareThumbnails.popLast() { return spare }
        let thumbnail = try LumaThumbnail(maxWidth: settings.trackingWidth)
        thumbnailsMade += 1
        return thumbnail
    }

    /// Takes back frame `number`'s thumbnail once nothing reads it: the frame has left, it is
    /// not the newest (the next frame is tracked from it), and its slot has no later frame.
    private func retireThumbnail(of number: Int) {
        guard number >= 0, number < oldest, number != newest, newest - number < settings.capacity,
            let thumbnail = slot(of: number).giveBackThumbnail()
        else { return }
        spareThumbnails.append(thumbnail)
    }

    /// Hands frame `number` to detection, with what `SearchScheduler` says it must look at
    /// (or the frame left waiting for a busy search instead, or nothing yet with `mayWait`); a
    /// frame in which nothing changed where searches looked needs no search and counts as searched.
    private func submit(_ number: Int, mayWait: Bool) {
        guard let search = scheduler.search(number, mayWait: mayWait, in: self, tracks: tracker.tracks) else { return }
        guard !search.regions.isEmpty else {
            searchedThrough = max(searchedThrough, search.frame)
            return
        }
        let slot = slot(of: search.frame)
        worker.submit(DetectionJob(
            frameNumber: search.frame, captureTimeMs: slot.captureTimeMs, picture: slot.frame.yuv420Picture,
            regions: search.regions))
    }

    private func record(_ result: DetectionResult) {
        framesSearched += 1
        let number = result.frameNumber
        searchedThrough = max(searchedThrough, number)
        let searched = slot(of: number)
        searched.detectionMs = result.detectionMs
        if let failure = result.failure {
            // Fail closed: every frame held now leaves masked whole, and what this search
            // was to look at is searched again.
            for waiting in oldest...max(oldest, newest) { slot(of: waiting).failure = failure }
            scheduler.forgetSearches()
            return
        }
        if !result.regions.isWholeFrame {
            for index in 0..<result.regions.count { edgeWatch.searched(frame: number, region: result.regions[index].rect) }
        }
        searched.appeared = tracker.record(result, in: self)
    }

    /// Lets out every frame that searches have looked past by the lookback (a search at or
    /// after it, when its buffer is needed now).
    private func release(_ emit: (MaskedFrame) throws -> Void, keepingLookback: Bool = true) throws {
        while held > 0, oldest <= searchedThrough {
            if keepingLookback, held < settings.capacity,
               slot(of: searchedThrough).captureTimeMs - slot(of: oldest).captureTimeMs < settings.lookbackMs {
                return
            }
            let slot = slot(of: oldest)
            let picture = slot.frame.yuv420Picture
            painted.removeAll(keepingCapacity: true)
            if let failure = slot.failure {
                let whole = PixelRect(x: 0, y: 0, width: width, height: height)
                MaskPainter.fill(whole, in: picture)
                painted.append(whole)
                counters.recordFailure(failure, detectionMs: slot.detectionMs)
            } else {
                for tracked in slot.boxes {
                    paint(tracked.box.grown(byFractionPerSide: settings.marginPerSide + tracked.growth), in: picture)
                }
                let faces = painted.count
                for band in slot.guardedBands { paint(band, in: picture) }
                counters.recordFrame(
                    masked: faces, appeared: slot.appeared, edgeGuarded: painted.count > faces, detectionMs: slot.detectionMs)
            }
            let captureTimeMs = slot.captureTimeMs
            oldest += 1
            held -= 1
            defer {
                pictures.giveBack(slot.giveBackPicture())
                retireThumbnail(of: oldest - 1)
            }
            try emit(MaskedFrame(picture: picture, captureTimeMs: captureTimeMs, maskedBoxes: painted, avFrame: slot.frame.pointer))
        }
    }

    /// Masks `box` (cut to the frame, grown to whole mosaic cells) unless a box painted already holds it.
    private func paint(_ box: PixelRect, in picture: YUV420Frame) {
        let box = painter.area(for: box, frameWidth: width, frameHeight: height)
        guard !box.isEmpty, !painted.contains(where: { $0.contains(box) }) else { return }
        painter.paint(box, in: picture)
        painted.append(box)
    }
}

/// What the tracker and the search schedule read of the frames held, and where the tracker
/// adds their faces.
extension DelayLineMasker: HeldFrames {
    func thumbnail(of number: Int) -> LumaThumbnail { slot(of: number).thumbnail }
    func captureTimeMs(of number: Int) -> Int64 { slot(of: number).captureTimeMs }
    func add(_ face: TrackedBox, to number: Int) { slot(of: number).add(face) }
}
