import CFFmpeg

/// Masks live video with a detector too slow to search every frame, without letting a
/// frame out before it is covered. The recorder's privacy pass.
///
/// Each frame is copied into a picture buffer of the delay line's pool (at most
/// `capacity` frames are held), with a small grey thumbnail for tracking. Whenever the detection thread is idle it
/// searches the newest frame, but only where the picture changed since searches last
/// looked (`SearchedPicture`, `ChangedRegionPlanner`; where much changed, `SearchPlan`'s
/// turn): a still scene costs no search, a walking person a small one. Where much changed,
/// the frame's turn is searched on every `busySearchStride`-th frame only; the frames
/// between wait for it. A frame leaves once a search of a frame `lookbackMs` after
/// it is done (only a search at or after it when its buffer is needed): a face the
/// detector finds late is masked back through every frame still held, to where it came
/// in. It leaves masked with:
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
/// When the delay line is full and its oldest frame has had no search since, the caller
/// waits for detection: privacy first, a frame never leaves unsearched. A live source
/// then lags, and drops frames it cannot deliver in time; the waits are counted.
/// Not thread-safe: one recording thread pushes; detection runs on its own thread.
public final class DelayLineMasker: LiveFrameMasking {
    public struct Settings: Sendable, Equatable {
        /// Frames the delay line may hold: the lookback and the longest search it rides
        /// out without waiting. Picture buffers are made only as frames are held at once.
        public var capacity: Int
        /// How long a face stays masked after the detector last found it, unless its region
        /// is unchanged (then longer). Bridges searches that miss a face now and then.
        public var holdMs: Int64
        /// Growth of every box per side, as a fraction of its size: hair, ears and chin
        /// that detectors leave out.
        public var marginPerSide: Double
        public var style: MaskStyle
        public var blocksAcross: Int
        /// Search every frame, in order, instead of the newest: nothing the detector can
        /// find escapes, and a live source loses the frames detection cannot keep up with.
        public var searchesEveryFrame: Bool
        /// Search only where the picture changed since searches last looked there (a fixed
        /// camera's background is mostly still), in small regions. Off: every search takes
        /// `SearchPlan`'s turn (the whole frame or an edge window).
        public var searchesChangedRegions: Bool
        /// Where much changed (a busy scene: the frame's turn, not a few small regions), search
        /// only every this many frames. The frames between wait for the next search (one frame
        /// more of live latency at 2), and a face it finds is masked back into them along the
        /// motion, as for any face found late: the privacy of a search of every frame, at a
        /// fraction of its cost. 1 searches every frame detection has time for.
        public var busySearchStride: Int
        /// The detector's widest input (`privacyDetectionWidth`): the plan's regions and the
        /// changed regions' sizes follow from it.
        public var minimumRegionWidth: Int
        /// Thumbnails for tracking are at most this wide.
        public var trackingWidth: Int
        /// How far past a frame searches must have looked before it leaves, while its
        /// buffer is not needed: a face the detector finds this late is still masked back
        /// to where it came in. It adds this much to the live latency.
        public var lookbackMs: Int64
        /// Mask the band beside whatever is crossing an edge of the picture (`EdgeGuard`): a face
        /// walking in is masked before a search can find it, without waiting for later frames.
        public var guardsEdges: Bool
        var flow: BoxFlow.Settings

        /// The default lookback: none. With the edge guard on, faces walking in are masked
        /// without it within the exposure goals (bench/README.md, issue 30), and every
        /// millisecond of it is live latency.
        public static let defaultLookbackMs: Int64 = 0
        /// The default busy search stride: half the searches of a busy scene (issue 40), for
        /// 33 ms more live latency in it.
        public static let defaultBusySearchStride = 2
        /// Time a search may take on a busy machine before frames wait for it.
        static let searchAllowanceMs: Int64 = 400

        /// Frames held at most at `fps`: the lookback and a search's allowance, and one more.
        public static func capacity(lookbackMs: Int64, fps: Double) -> Int {
            let heldMs = Double(lookbackMs + searchAllowanceMs)
            return max(4, Int((heldMs * max(fps, 1) / 1000).rounded(.up)) + 1)
        }

        /// - Parameter capacity: nil for `capacity(lookbackMs:fps:)`.
        public init(
            capacity: Int? = nil, fps: Double = 30, holdMs: Int64 = 1000, searchesEveryFrame: Bool = false, marginPerSide: Double = 0.2,
            style: MaskStyle = .mosaic, blocksAcross: Int = 6, searchesChangedRegions: Bool = true,
            minimumRegionWidth: Int = 640, trackingWidth: Int = 480, lookbackMs: Int64 = Settings.defaultLookbackMs,
            guardsEdges: Bool = true, busySearchStride: Int = Settings.defaultBusySearchStride
        ) {
            self.busySearchStride = busySearchStride
            self.lookbackMs = lookbackMs
            self.guardsEdges = guardsEdges
            self.minimumRegionWidth = minimumRegionWidth
            self.searchesChangedRegions = searchesChangedRegions
            self.capacity = capacity ?? Self.capacity(lookbackMs: lookbackMs, fps: fps)
            self.holdMs = holdMs
            self.searchesEveryFrame = searchesEveryFrame
            self.marginPerSide = marginPerSide
            self.style = style
            self.blocksAcross = blocksAcross
            self.trackingWidth = trackingWidth
            self.flow = BoxFlow.Settings()
        }
    }

    public let settings: Settings
    public let counters: PrivacyCounters
    public let width: Int
    public let height: Int
    /// Frames searched so far, and times `push` had to wait for detection.
    public private(set) var framesSearched = 0
    public private(set) var waitsForDetection = 0

    private let worker: DetectionWorker
    private let painter: MaskPainter
    private let flow: BoxFlow
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
    private var oldest = 0
    private var held = 0
    private var lastSubmitted = -1
    /// The last frame searched in its turn (much changed), and the frame left for the next
    /// search by `busySearchStride`, if any.
    private var lastBusySearch = Int.min / 2
    private var waitingForBusySearch: Int?
    private var plan: SearchPlan
    /// What searches have looked at, block by block, and the regions that need a search.
    private let searchedPicture = SearchedPicture()
    private var changedBlocks: [Bool] = []
    private var planner: ChangedRegionPlanner
    /// The faces tracked in the frame being planned (the masks of those found lately): a
    /// changed region that touches one searches it whole.
    private var trackedFaces: [PixelRect] = []
    /// Frames that needed no search: nothing changed where searches had looked.
    public private(set) var framesUnchanged = 0
    /// Every frame up to this one has had a search at or after it.
    private var searchedThrough = -1
    private var tracks: [FaceTrack] = []
    private var scratchSignature: RegionSignature?
    private var painted: [PixelRect] = []
    /// The edge guard's bands, kept until a search has looked past the edge there.
    private var edgeWatch: EdgeWatch

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
        flow = BoxFlow(settings: settings.flow)
        plan = SearchPlan(width: width, height: height, detectionWidth: settings.minimumRegionWidth)
        planner = ChangedRegionPlanner(frameWidth: width, frameHeight: height, detectionWidth: settings.minimumRegionWidth)
        edgeWatch = EdgeWatch(frameWidth: width, frameHeight: height)
        pictures = PicturePool(width: width, height: height, capacity: settings.capacity)
        thumbnailScaler = try GreyScaler(finish: .bilinear)
        for _ in 0..<settings.capacity { slots.append(DelayLineSlot()) }
        spareThumbnails.reserveCapacity(settings.capacity)
        worker = try DetectionWorker(makeDetectors: makeDetectors)
        tracks.reserveCapacity(64)
        trackedFaces.reserveCapacity(64)
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
        carryTracks(into: number)
        if settings.guardsEdges, number > 0 {
            EdgeGuard.guardedBands(
                from: self.slot(of: number - 1).thumbnail, to: slot.thumbnail, frameWidth: width, frameHeight: height,
                into: &slot.guardedBands)
            edgeWatch.update(frame: number, captureMs: captureTimeMs, bands: &slot.guardedBands)
        }
        retireThumbnail(of: number - 1)
        if let result = worker.takeResultIfDone() { record(result) }
        if !worker.isBusy { submit(nextToSearch, mayWait: true) }
        try release(emit)
    }

    public func push(_ frame: CapturedFrame, emit: (MaskedFrame) throws -> Void) throws {
        try push(frame.picture, captureTimeMs: frame.captureTimeMs, emit: emit)
    }

    /// Searches the newest frame if it was not, and lets every frame out.
    public func finish(emit: (MaskedFrame) throws -> Void) throws {
        guard held > 0 else { return }
        let newest = oldest + held - 1
        if worker.isBusy { record(worker.waitForResult()) }
        while lastSubmitted < newest {
            submit(settings.searchesEveryFrame ? lastSubmitted + 1 : newest, mayWait: false)
            if worker.isBusy { record(worker.waitForResult()) }
        }
        try release(emit, keepingLookback: false)
    }

    /// The newest frame held, or with `searchesEveryFrame` the oldest not yet searched.
    private var nextToSearch: Int {
        settings.searchesEveryFrame ? lastSubmitted + 1 : oldest + held - 1
    }

    private var newest: Int { oldest + held - 1 }

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

    /// Hands frame `number` to detection, with what it must look at; a frame in which
    /// nothing changed where searches looked needs no search and counts as searched. With
    /// `mayWait`, a busy frame too soon after the last busy search is left for a later one.
    private func submit(_ number: Int, mayWait: Bool) {
        var number = number
        var next = nextSearch(for: number)
        let strided = settings.searchesChangedRegions && !settings.searchesEveryFrame
        if strided, next.isTurn, mayWait, number - lastBusySearch < settings.busySearchStride {
            waitingForBusySearch = waitingForBusySearch ?? number
            return
        }
        if let waiting = waitingForBusySearch, waiting >= oldest, waiting < number {
            // Only a busy search of a later frame stands in for the frame left waiting: what
            // changed there may be gone from a later one (a flash), where a small or no search
            // would not look. Otherwise the waiting frame is searched itself.
            if !next.isTurn {
                number = waiting
                next = nextSearch(for: waiting)
            }
        }
        waitingForBusySearch = nil
        lastSubmitted = number
        let regions = taken(next, in: number)
        guard !regions.isEmpty else {
            framesUnchanged += 1
            searchedThrough = max(searchedThrough, number)
            return
        }
        let slot = slot(of: number)
        worker.submit(DetectionJob(
            frameNumber: number, captureTimeMs: slot.captureTimeMs, picture: slot.frame.yuv420Picture, regions: regions))
    }

    /// What the search of frame `number` must look at. Where the picture is still (a fixed
    /// camera's background), only the blocks that changed since searches last looked at
    /// them, in a few small regions (`ChangedRegionPlanner`), or nothing; where much changed,
    /// `SearchPlan`'s turn (the whole frame, or an edge window). Changes nothing but scratch
    /// buffers: `taken` commits to it.
    private func nextSearch(for number: Int) -> NextSearch {
        guard !settings.searchesEveryFrame, settings.searchesChangedRegions else { return .turn }
        let slot = slot(of: number)
        var changedCount = searchedPicture.changedBlocks(in: slot.thumbnail, capturedAtMs: slot.captureTimeMs, into: &changedBlocks)
        guard changedCount > 0 else { return .nothing }
        // What a face found lately is masked with in this frame needs no search for itself:
        // what changed only under the mask leaves masked (and is searched once the mask moves
        // off it). But a change beside a mask searches the mask's area with it: a face that
        // appears half behind another's mask is seen whole. A face not found for half its hold
        // is searched whole, so that it is let go once gone.
        trackedFaces.removeAll(keepingCapacity: true)
        for track in tracks where track.frameNumber == number {
            if slot.captureTimeMs - track.lastSeenMs > settings.holdMs / 2 {
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
    private func taken(_ next: NextSearch, in number: Int) -> SearchRegions {
        let slot = slot(of: number)
        switch next {
        case .nothing:
            return .nothing
        case .changed(let regions):
            for index in 0..<regions.count {
                searchedPicture.record(searchOf: regions[index].rect, in: slot.thumbnail, capturedAtMs: slot.captureTimeMs)
            }
            return regions
        case .turn:
            lastBusySearch = number
            var coverage = settings.searchesEveryFrame ? .whole : plan.nextCoverage(wholeNeeded: false)
            // An edge window's turn leaves the rest of the frame to later turns: where something
            // changed outside the window (a face that popped up there), the frame is searched
            // whole, if a whole search sees faces at a scale that finds them (720p, not 1080p,
            // whose small faces only the windows find).
            let wholeFrame = PixelRect(x: 0, y: 0, width: width, height: height)
            if case .edgeWindow = coverage, settings.searchesChangedRegions, let window = plan.region(for: coverage),
               seesFaces(in: wholeFrame), searchedPicture.flagsBlock(outside: window, in: changedBlocks) {
                coverage = .whole
            }
            let region = plan.region(for: coverage)
            // Taken in where the detector sees it at a scale that finds faces (not a 1920 px
            // frame shrunk to 640).
            if settings.searchesChangedRegions, seesFaces(in: region ?? wholeFrame) {
                searchedPicture.record(searchOf: region ?? wholeFrame, in: slot.thumbnail, capturedAtMs: slot.captureTimeMs)
            }
            return region.map { SearchRegions($0) } ?? .wholeFrame
        }
    }

    /// Whether a search of `rect` sees its faces at half scale at least (as a whole 720p
    /// frame), the scale the changed regions are searched at.
    private func seesFaces(in rect: PixelRect) -> Bool {
        min(1, Double(settings.minimumRegionWidth) / Double(max(rect.width, 1))) >= ChangedRegionPlanner.coarsestScale
    }

    /// Moves every track from the frame before `number` into it and adds its box there.
    private func carryTracks(into number: Int) {
        guard number > 0 else { return }
        let previous = slot(of: number - 1)
        let current = slot(of: number)
        for index in tracks.indices where tracks[index].frameNumber == number - 1 {
            tracks[index].tracked = flow.move(tracks[index].tracked, from: previous.thumbnail, to: current.thumbnail)
            tracks[index].frameNumber = number
            tracks[index].tracked.box = keptAtEdge(tracks[index].tracked.box)
            current.add(tracks[index].tracked)
        }
    }

    /// A face carried out through an edge keeps a quarter of its box inside until the
    /// track is lost: a person standing half out of the picture, or stepping out and back,
    /// stays masked, and the motion measured in that part carries the mask back in.
    private func keptAtEdge(_ box: PixelRect) -> PixelRect {
        var kept = box
        let insideX = max(2, box.width / 4)
        let insideY = max(2, box.height / 4)
        kept.x = min(max(kept.x, insideX - kept.width), width - insideX)
        kept.y = min(max(kept.y, insideY - kept.height), height - insideY)
        return kept
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
            searchedPicture.reset()
            return
        }
        if !result.regions.isWholeFrame {
            for index in 0..<result.regions.count { edgeWatch.searched(frame: number, region: result.regions[index].rect) }
        }
        var appeared = 0
        for found in result.boxes {
            // Part of a tracked face, where a region's side cut it: the track's box is better. A
            // face beside a tracked one is no part of it.
            if isCut(found, by: result.regions),
               tracks.contains(where: { 2 * $0.tracked.box.intersection(found).area > found.area }) { continue }
            let detection = TrackedBox(box: found)
            searched.add(detection)
            var ahead = detection
            for later in (number + 1)..<(newest + 1) {
                ahead = flow.move(ahead, from: slot(of: later - 1).thumbnail, to: slot(of: later).thumbnail)
                slot(of: later).add(ahead)
            }
            let previousFind = follow(found, carriedTo: ahead, foundIn: number, at: result.captureTimeMs)
            if previousFind == nil { appeared += 1 }
            // A face found before is already masked back to where it came in; carry this
            // box back to that search only. A new face is carried back through every frame held.
            var back = detection
            for earlier in stride(from: number - 1, to: max(oldest, previousFind ?? oldest) - 1, by: -1) {
                back = flow.move(back, from: slot(of: earlier + 1).thumbnail, to: slot(of: earlier).thumbnail)
                slot(of: earlier).add(back)
            }
        }
        searched.appeared = appeared
        dropLostTracks(after: number, at: result.captureTimeMs, searched: result.regions)
    }

    /// Whether `box` reaches a side of a changed region that lies inside the frame: the net
    /// saw only the part of a face on this side of it.
    private func isCut(_ box: PixelRect, by regions: SearchRegions) -> Bool {
        let slack = 2
        return (0..<regions.count).contains { index in
            let rect = regions[index].rect
            guard regions[index].scale != nil, rect.intersection(box).area > 0 else { return false }
            return (rect.x > 0 && box.x <= rect.x + slack) || (rect.maxX < width && box.maxX >= rect.maxX - slack)
                || (rect.y > 0 && box.y <= rect.y + slack) || (rect.maxY < height && box.maxY >= rect.maxY - slack)
        }
    }

    /// Updates the track that `carried` (a detection in frame `number`, carried to the
    /// newest frame) belongs to, or starts one. Returns the search that found the face
    /// before, nil for a new face.
    private func follow(_ found: PixelRect, carriedTo carried: TrackedBox, foundIn number: Int, at captureMs: Int64) -> Int? {
        let thumbnail = slot(of: number).thumbnail
        var best: Int?
        var bestOverlap = Self.sameFaceOverlap
        for index in tracks.indices {
            let overlap = tracks[index].tracked.box.intersectionOverUnion(carried.box)
            if overlap >= bestOverlap {
                best = index
                bestOverlap = overlap
            }
        }
        guard let best else {
            tracks.append(FaceTrack(
                tracked: carried, frameNumber: newest, lastSeenMs: captureMs, lastFoundInSearch: number,
                signature: RegionSignature(of: found, in: thumbnail)))
            return nil
        }
        let previousFind = tracks[best].lastFoundInSearch
        tracks[best].tracked = carried
        tracks[best].frameNumber = newest
        tracks[best].lastSeenMs = captureMs
        tracks[best].lastFoundInSearch = number
        tracks[best].signature.update(found, in: thumbnail)
        return previousFind
    }

    /// Ends tracks that search `number` looked at and did not find, last found more than
    /// `holdMs` ago, whose region has changed since or which are mostly outside the frame;
    /// and tracks that another, found now, duplicates.
    private func dropLostTracks(after number: Int, at captureMs: Int64, searched regions: SearchRegions) {
        let thumbnail = slot(of: newest).thumbnail
        var index = tracks.startIndex
        while index < tracks.endIndex {
            // A search that did not look at (most of what shows of) a face cannot have missed it.
            let shown = tracks[index].tracked.box.clamped(toWidth: width, height: height)
            let lookedAt = regions.lookedWhole(at: shown)
            if lookedAt, isLost(tracks[index], after: number, at: captureMs, in: thumbnail) {
                tracks.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    private func isLost(_ track: FaceTrack, after number: Int, at captureMs: Int64, in thumbnail: LumaThumbnail) -> Bool {
        guard track.lastFoundInSearch != number else { return false }
        let duplicated = tracks.contains {
            $0.lastFoundInSearch == number && $0.tracked.box.intersectionOverUnion(track.tracked.box) >= Self.sameFaceOverlap
        }
        if duplicated { return true }
        guard captureMs - track.lastSeenMs > settings.holdMs else { return false }
        // A face carried out through the edge, kept mostly outside: only the hold keeps it.
        let box = track.tracked.box
        if 2 * box.clamped(toWidth: width, height: height).area < box.area { return true }
        if scratchSignature == nil {
            scratchSignature = RegionSignature(of: track.tracked.box, in: thumbnail)
        } else {
            scratchSignature?.update(track.tracked.box, in: thumbnail)
        }
        return scratchSignature!.difference(from: track.signature) > RegionSignature.changedAbove
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

    /// Boxes overlapping this much (IoU) are taken for the same face.
    static let sameFaceOverlap = 0.3
}
