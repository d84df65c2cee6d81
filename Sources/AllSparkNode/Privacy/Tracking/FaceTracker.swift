/// Follows the faces the delay line's searches find through the frames it holds.
///
/// A face a search finds is masked in the frames after it, carried forward to the newest
/// frame along the measured motion of the picture (optical flow, `BoxFlow`), and in the
/// frames before it, carried back to where it came in: a face that came in between two
/// searches, or that searches found late, is covered from where it entered. Its track
/// (`FaceTrack`) carries it on into every frame pushed after: a face the detector misses
/// in some searches stays masked while it was last found less than `holdMs` ago, and for
/// as long after that as its region has not changed (a person sitting still stays masked
/// however long they sit). Only a search that saw the face's place at a scale that finds it
/// can end its track: nearly as fine as the search that last found it, or fine enough to
/// see the face at `surelySeenInputWidth`. Under load a 1080p frame's finer window searches
/// come seldom, and a whole-frame search sees a small face at a third of its size: its miss
/// is no evidence the face is gone. Allocates nothing per frame once its tracks' room is made.
final class FaceTracker {
    let frameWidth: Int
    let frameHeight: Int
    /// How long a face stays masked after the detector last found it, unless its region
    /// is unchanged (then longer).
    let holdMs: Int64
    /// The detector's widest input (`privacyDetectionWidth`): it sets the scale a region is searched at.
    let detectionWidth: Int
    /// The faces followed, each in the newest frame it was carried to.
    private(set) var tracks: [FaceTrack] = []
    private let flow: BoxFlow
    private var scratchSignature: RegionSignature?

    init(frameWidth: Int, frameHeight: Int, holdMs: Int64, detectionWidth: Int, flow: BoxFlow.Settings) {
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.holdMs = holdMs
        self.detectionWidth = detectionWidth
        self.flow = BoxFlow(settings: flow)
        tracks.reserveCapacity(64)
    }

    /// Moves every track from the frame before `number` into it and adds its box there.
    func carryTracks(into number: Int, in frames: some HeldFrames) {
        guard number > 0 else { return }
        for index in tracks.indices where tracks[index].frameNumber == number - 1 {
            tracks[index].tracked = flow.move(
                tracks[index].tracked, from: frames.thumbnail(of: number - 1), to: frames.thumbnail(of: number))
            tracks[index].frameNumber = number
            tracks[index].tracked.box = keptAtEdge(tracks[index].tracked.box)
            frames.add(tracks[index].tracked, to: number)
        }
    }

    /// A face carried out through an edge keeps a quarter of its box inside until the
    /// track is lost: a person standing half out of the picture, or stepping out and back,
    /// stays masked, and the motion measured in that part carries the mask back in.
    private func keptAtEdge(_ box: PixelRect) -> PixelRect {
        var kept = box
        let insideX = max(2, box.width / 4)
        let insideY = max(2, box.height / 4)
        kept.x = min(max(kept.x, insideX - kept.width), frameWidth - insideX)
        kept.y = min(max(kept.y, insideY - kept.height), frameHeight - insideY)
        return kept
    }

    /// Masks the faces a successful search found in the frames held: in its frame, carried
    /// forward to the newest and back to where each came in; follows them, and ends the
    /// tracks it lost. Returns how many faces appeared (no track followed them yet).
    func record(_ result: DetectionResult, in frames: some HeldFrames) -> Int {
        let number = result.frameNumber
        var appeared = 0
        for found in result.boxes {
            // Part of a tracked face, where a region's side cut it: the track's box is better. A
            // face beside a tracked one is no part of it.
            if isCut(found, by: result.regions),
               tracks.contains(where: { 2 * $0.tracked.box.intersection(found).area > found.area }) { continue }
            let detection = TrackedBox(box: found)
            frames.add(detection, to: number)
            var ahead = detection
            for later in (number + 1)..<(frames.newest + 1) {
                ahead = flow.move(ahead, from: frames.thumbnail(of: later - 1), to: frames.thumbnail(of: later))
                frames.add(ahead, to: later)
            }
            let scale = result.regions.finestScale(touching: found, frameWidth: frameWidth, detectionWidth: detectionWidth)
            let previousFind = follow(
                found, carriedTo: ahead, foundIn: number, atScale: scale, at: result.captureTimeMs, in: frames)
            if previousFind == nil { appeared += 1 }
            // A face found before is already masked back to where it came in; carry this
            // box back to that search only. A new face is carried back through every frame held.
            var back = detection
            let oldest = frames.oldest
            for earlier in stride(from: number - 1, to: max(oldest, previousFind ?? oldest) - 1, by: -1) {
                back = flow.move(back, from: frames.thumbnail(of: earlier + 1), to: frames.thumbnail(of: earlier))
                frames.add(back, to: earlier)
            }
        }
        dropLostTracks(after: number, at: result.captureTimeMs, searched: result.regions, in: frames)
        return appeared
    }

    /// Whether `box` reaches a side of a changed region that lies inside the frame: the net
    /// saw only the part of a face on this side of it.
    private func isCut(_ box: PixelRect, by regions: SearchRegions) -> Bool {
        let slack = 2
        return (0..<regions.count).contains { index in
            let rect = regions[index].rect
            guard regions[index].scale != nil, rect.intersection(box).area > 0 else { return false }
            return (rect.x > 0 && box.x <= rect.x + slack) || (rect.maxX < frameWidth && box.maxX >= rect.maxX - slack)
                || (rect.y > 0 && box.y <= rect.y + slack) || (rect.maxY < frameHeight && box.maxY >= rect.maxY - slack)
        }
    }

    /// Updates the track that `carried` (a detection in frame `number`, carried to the
    /// newest frame) belongs to, or starts one. Returns the search that found the face
    /// before, nil for a new face.
    private func follow(
        _ found: PixelRect, carriedTo carried: TrackedBox, foundIn number: Int, atScale scale: Double, at captureMs: Int64,
        in frames: some HeldFrames
    ) -> Int? {
        let thumbnail = frames.thumbnail(of: number)
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
                tracked: carried, frameNumber: frames.newest, lastSeenMs: captureMs, lastFoundInSearch: number,
                foundAtScale: scale, missesAfterHold: 0, signature: RegionSignature(of: found, in: thumbnail)))
            return nil
        }
        let previousFind = tracks[best].lastFoundInSearch
        tracks[best].tracked = carried
        tracks[best].frameNumber = frames.newest
        tracks[best].lastSeenMs = captureMs
        tracks[best].lastFoundInSearch = number
        tracks[best].foundAtScale = scale
        tracks[best].missesAfterHold = 0
        tracks[best].signature.update(found, in: thumbnail)
        return previousFind
    }

    /// Ends tracks that another, found now, duplicates, or that were carried mostly out of
    /// the frame; and tracks missed by `missesToEnd` searches in a row that looked at them
    /// (finely enough to find them), each after the hold and with their region changed.
    private func dropLostTracks(after number: Int, at captureMs: Int64, searched regions: SearchRegions, in frames: some HeldFrames) {
        let thumbnail = frames.thumbnail(of: frames.newest)
        var index = tracks.startIndex
        while index < tracks.endIndex {
            let shown = tracks[index].tracked.box.clamped(toWidth: frameWidth, height: frameHeight)
            if sawWhole(shown, of: tracks[index], in: regions) {
                switch verdict(on: tracks[index], after: number, at: captureMs, in: thumbnail) {
                case .ended:
                    tracks.remove(at: index)
                    continue
                case .missed:
                    tracks[index].missesAfterHold += 1
                    if tracks[index].missesAfterHold >= Self.missesToEnd {
                        tracks.remove(at: index)
                        continue
                    }
                case .kept:
                    break
                }
            }
            index += 1
        }
    }

    /// Whether a search of `regions` would have found the face `track` follows, now at `shown`:
    /// one region held all of what shows of it (a net does not find half a face), at a scale
    /// that finds it.
    private func sawWhole(_ shown: PixelRect, of track: FaceTrack, in regions: SearchRegions) -> Bool {
        guard let scale = regions.finestScale(holdingWhole: shown, frameWidth: frameWidth, detectionWidth: detectionWidth) else {
            return false
        }
        return scale >= track.foundAtScale * Self.nearlyAsFine || Double(shown.width) * scale >= Self.surelySeenInputWidth
    }

    private enum Verdict {
        /// Found now, within its hold, or its region unchanged since it was found.
        case kept
        /// Not found, after the hold, where the picture changed.
        case missed
        /// Another track, found now, follows the same face; or it was carried mostly out of the frame.
        case ended
    }

    private func verdict(on track: FaceTrack, after number: Int, at captureMs: Int64, in thumbnail: LumaThumbnail) -> Verdict {
        guard track.lastFoundInSearch != number else { return .kept }
        let duplicated = tracks.contains {
            $0.lastFoundInSearch == number && $0.tracked.box.intersectionOverUnion(track.tracked.box) >= Self.sameFaceOverlap
        }
        if duplicated { return .ended }
        guard captureMs - track.lastSeenMs > holdMs else { return .kept }
        // A face carried out through the edge, kept mostly outside: only the hold keeps it.
        let box = track.tracked.box
        if 2 * box.clamped(toWidth: frameWidth, height: frameHeight).area < box.area { return .ended }
        if scratchSignature == nil {
            scratchSignature = RegionSignature(of: track.tracked.box, in: thumbnail)
        } else {
            scratchSignature?.update(track.tracked.box, in: thumbnail)
        }
        return scratchSignature!.difference(from: track.signature) > RegionSignature.changedAbove ? .missed : .kept
    }

    /// Boxes overlapping this much (IoU) are taken for the same face.
    static let sameFaceOverlap = 0.3
    /// A face this wide at the net's input is found at any scale: a coarser search than the
    /// one that found it may end its track.
    static let surelySeenInputWidth = 48.0
    /// A search at this share of the scale that found a face sees it barely smaller (a
    /// changed region at 0.5 after a 1080p window at 0.56); a whole 1080p frame at 0.33 does not.
    static let nearlyAsFine = 0.8
    /// Searches in a row that must miss a face before its track ends: a net misses a small
    /// face now and then, and under load the next search fine enough to find it comes
    /// seconds later, so one miss would show the face until then.
    static let missesToEnd = 2
}
