/// Turns the blocks that changed since searches last looked at them (`SearchedPicture`)
/// into at most `SearchRegions.capacity` small regions, each searched at the scale faces
/// need and no finer: a walking person costs a search of the part around them, not of the
/// frame. Nil when that would cost about as much as the frame's own turn (`SearchPlan`).
///
/// Changed blocks that touch are one group; each group's box grows by a block on every
/// side and to the whole of any tracked face it touches (a face is searched whole, so a
/// search of half of it never ends its track); boxes that overlap merge, and the closest
/// merge until few enough are left. Each box is then searched as the smallest region of
/// the frame's shape, from a few fixed sizes (OpenCV keeps one net per input size), that
/// holds it, reaching past an edge it touches as the edge windows do.
/// Reuses its buffers: allocates nothing once the frame size is known.
struct ChangedRegionPlanner {
    /// The coarsest scale a changed region is searched at: a face 48 px wide is seen at 24 px
    /// at least (as a whole 1280 px frame is searched at 640).
    static let coarsestScale = 0.5
    /// Region input widths, as shares of the detector's widest input (and its frame-shaped height).
    static let sizeShares = [0.25, 0.5, 1.0]

    let frameWidth: Int
    let frameHeight: Int
    /// Detector input pixels per frame pixel in these regions.
    let scale: Double
    /// The region sizes, smallest first, in frame pixels.
    let sizes: [(width: Int, height: Int)]
    private var labels: [Int32] = []
    private var stack: [Int] = []
    private var boxes: [PixelRect] = []

    /// - Parameter detectionWidth: the detector's widest input (`privacyDetectionWidth`).
    init(frameWidth: Int, frameHeight: Int, detectionWidth: Int) {
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        let wholeFrameScale = Double(detectionWidth) / Double(max(frameWidth, 1))
        let scale = min(1, max(wholeFrameScale, Self.coarsestScale))
        self.scale = scale
        let aspect = Double(frameHeight) / Double(max(frameWidth, 1))
        sizes = Self.sizeShares.map { share in
            let width = (Int((Double(detectionWidth) * share / scale).rounded()) + 1) & ~1
            return (width, (Int((Double(width) * aspect).rounded()) + 1) & ~1)
        }
        boxes.reserveCapacity(64)
        stack.reserveCapacity(256)
    }

    /// The regions to search for the blocks flagged in `changed` (laid out as `picture`'s),
    /// given the faces tracked in that frame; nil when the frame's own turn is as cheap.
    mutating func regions(changed: [Bool], in picture: SearchedPicture, trackedFaces: [PixelRect]) -> SearchRegions? {
        guard groupChangedBlocks(changed, in: picture) else { return nil }
        for index in boxes.indices {
            for face in trackedFaces where face.intersection(boxes[index]).area > 0 { boxes[index] = boxes[index].union(face) }
        }
        mergeOverlapping()
        while boxes.count > SearchRegions.capacity { mergeClosestPair() }
        var regions = SearchRegions.nothing
        var inputArea = 0.0
        for box in boxes {
            guard let size = sizes.first(where: { $0.width >= box.width && $0.height >= box.height }),
                  Double(size.width) <= Double(frameWidth) * Self.largestShare
            else { return nil }
            let rect = placed(size, around: box)
            regions.append(.init(rect: rect, scale: scale))
            inputArea += Double(rect.width * rect.height) * scale * scale
        }
        // Searching the largest size's worth or more: the frame's turn looks at all of it.
        let largest = sizes[sizes.count - 1]
        return inputArea < Double(largest.width * largest.height) * scale * scale ? regions : nil
    }

    /// A region wider than this share of the frame is left to the frame's own turn.
    static let largestShare = 0.75
    /// Groups beyond this many: the change is all over the frame.
    static let mostGroups = 48

    /// Fills `boxes` with each group of touching changed blocks, in frame pixels, grown by a
    /// block. False when there are too many groups to be worth it.
    private mutating func groupChangedBlocks(_ changed: [Bool], in picture: SearchedPicture) -> Bool {
        let across = picture.blocksAcross
        let down = picture.blocksDown
        if labels.count != changed.count { labels = Array(repeating: 0, count: changed.count) }
        for index in labels.indices { labels[index] = 0 }
        boxes.removeAll(keepingCapacity: true)
        for start in changed.indices where changed[start] && labels[start] == 0 {
            guard boxes.count < Self.mostGroups else { return false }
            let label = Int32(boxes.count + 1)
            labels[start] = label
            stack.append(start)
            var box = picture.frameRect(blockX: start % across, blockY: start / across)
            while let index = stack.popLast() {
                let blockX = index % across
                let blockY = index / across
                box = box.union(picture.frameRect(blockX: blockX, blockY: blockY))
                for neighbourY in max(0, blockY - 1)...min(down - 1, blockY + 1) {
                    for neighbourX in max(0, blockX - 1)...min(across - 1, blockX + 1) {
                        let neighbour = neighbourY * across + neighbourX
                        if changed[neighbour], labels[neighbour] == 0 {
                            labels[neighbour] = label
                            stack.append(neighbour)
                        }
                    }
                }
            }
            let margin = Int((Double(SearchedPicture.block) / picture.scale).rounded(.up))
            boxes.append(PixelRect(x: box.x - margin, y: box.y - margin, width: box.width + 2 * margin, height: box.height + 2 * margin)
                .clamped(toWidth: frameWidth, height: frameHeight))
        }
        return true
    }

    private mutating func mergeOverlapping() {
        var merged = true
        while merged {
            merged = false
            outer: for first in boxes.indices {
                for second in boxes.indices where second > first && boxes[first].intersection(boxes[second]).area > 0 {
                    boxes[first] = boxes[first].union(boxes[second])
                    boxes.remove(at: second)
                    merged = true
                    break outer
                }
            }
        }
    }

    /// Merges the two boxes whose union adds the least area.
    private mutating func mergeClosestPair() {
        var best = (first: 0, second: 1, added: Int.max)
        for first in boxes.indices {
            for second in boxes.indices where second > first {
                let added = boxes[first].union(boxes[second]).area - boxes[first].area - boxes[second].area
                if added < best.added { best = (first, second, added) }
            }
        }
        boxes[best.first] = boxes[best.first].union(boxes[best.second])
        boxes.remove(at: best.second)
    }

    /// A region of `size` centred on `box`, inside the frame, except that it reaches past
    /// an edge `box` touches (by as much as `SearchPlan`'s windows), so that a face cut by
    /// that edge is seen with its mirror image and the edge guard's band there can end.
    private func placed(_ size: (width: Int, height: Int), around box: PixelRect) -> PixelRect {
        var left = min(max(0, box.x + box.width / 2 - size.width / 2), max(0, frameWidth - size.width)) & ~1
        var top = min(max(0, box.y + box.height / 2 - size.height / 2), max(0, frameHeight - size.height)) & ~1
        let reachX = Int(Double(size.width) * SearchPlan.reachPastSide) & ~1
        let reachY = Int(Double(size.height) * SearchPlan.reachPastTopAndBottom) & ~1
        if box.x <= 0 {
            left -= reachX
        } else if box.maxX >= frameWidth {
            left += reachX
        }
        if box.y <= 0 {
            top -= reachY
        } else if box.maxY >= frameHeight {
            top += reachY
        }
        return PixelRect(x: left, y: top, width: size.width, height: size.height)
    }
}
