/// What the searches have looked at, block by block: each 16x16 block of the tracking
/// thumbnail as it was in the last frame a search covered it at a scale that finds faces.
///
/// A detector gives the same answer for the same pixels, so a block that has not changed
/// since a search looked at it cannot hold a face that search did not find: only blocks
/// that changed since (or that no search has covered yet) need searching. Compared as
/// `BlockChange` says (mean absolute difference over 4 grey levels), and against
/// the searched picture rather than the frame before, so a change too slow to show between
/// two frames still adds up. A block is also searched again `refreshMs` after its last
/// search, changed or not: a net's score for a face near its threshold moves with the
/// sensor's noise, and a face missed once then gets another look (about one whole-frame
/// search every 2 s, 1% of a core at 720p). Owns its buffers; allocates only when the
/// frame size changes.
final class SearchedPicture {
    static let block = BlockChange.block
    private(set) var blocksAcross = 0
    private(set) var blocksDown = 0
    /// Thumbnail pixels per frame pixel.
    private(set) var scale = 1.0
    private var width = 0
    private var height = 0
    private var pixels: [UInt8] = []
    /// Scratch: per thumbnail column, the differences summed over one block row.
    private var columnDifferences: [UInt32] = []
    /// Per block: the capture time of the frame a search last covered it in, nil if none
    /// has since the last reset.
    private var searchedAtMs: [Int64?] = []
    let refreshMs: Int64

    init(refreshMs: Int64 = 2000) {
        self.refreshMs = refreshMs
    }

    /// Forgets every search: each block needs one again (at start, after a failed search).
    func reset() {
        for index in searchedAtMs.indices { searchedAtMs[index] = nil }
    }

    /// Marks in `changed` (one flag per block, row by row; resized only when the frame size
    /// changes) every block of `thumbnail` that differs from what searches last saw there, or
    /// that no search has covered, or not for `refreshMs` before `captureMs`. Returns how many.
    func changedBlocks(in thumbnail: LumaThumbnail, capturedAtMs captureMs: Int64, into changed: inout [Bool]) -> Int {
        adopt(size: thumbnail)
        if changed.count != searchedAtMs.count { changed = Array(repeating: false, count: searchedAtMs.count) }
        var count = 0
        for blockY in 0..<blocksDown {
            sumDifferences(blockY: blockY, in: thumbnail)
            for blockX in 0..<blocksAcross {
                let index = blockY * blocksAcross + blockX
                let stale = searchedAtMs[index].map { captureMs - $0 > refreshMs } ?? true
                changed[index] = stale || differs(blockX: blockX, blockY: blockY)
                if changed[index] { count += 1 }
            }
        }
        return count
    }

    /// A search of the frame whose thumbnail is `thumbnail`, captured at `captureMs`, looked
    /// at `region` (frame pixels): the blocks wholly inside it take that frame's pixels as
    /// what was searched.
    func record(searchOf region: PixelRect, in thumbnail: LumaThumbnail, capturedAtMs captureMs: Int64) {
        adopt(size: thumbnail)
        forEachBlock(inside: region) { blockX, blockY in
            copyBlock(blockX: blockX, blockY: blockY, from: thumbnail)
            searchedAtMs[blockY * blocksAcross + blockX] = captureMs
        }
    }

    /// Clears the flags of the blocks wholly inside `box` (frame pixels). Returns how many
    /// were set.
    func unflag(blocksInside box: PixelRect, in changed: inout [Bool]) -> Int {
        guard changed.count == blocksAcross * blocksDown else { return 0 }
        var cleared = 0
        forEachBlock(inside: box) { blockX, blockY in
            let index = blockY * blocksAcross + blockX
            if changed[index] { cleared += 1 }
            changed[index] = false
        }
        return cleared
    }

    /// Sets the flags of the blocks `box` (frame pixels) touches. Returns how many were clear.
    func flag(blocksTouching box: PixelRect, in changed: inout [Bool]) -> Int {
        guard changed.count == blocksAcross * blocksDown, box.width > 0, box.height > 0 else { return 0 }
        let firstX = max(Int(Double(box.x) * scale) / Self.block, 0)
        let firstY = max(Int(Double(box.y) * scale) / Self.block, 0)
        let lastX = min(Int(Double(box.maxX - 1) * scale) / Self.block, blocksAcross - 1)
        let lastY = min(Int(Double(box.maxY - 1) * scale) / Self.block, blocksDown - 1)
        guard firstX <= lastX, firstY <= lastY else { return 0 }
        var set = 0
        for blockY in firstY...lastY {
            for blockX in firstX...lastX {
                let index = blockY * blocksAcross + blockX
                if !changed[index] { set += 1 }
                changed[index] = true
            }
        }
        return set
    }

    /// Whether a block flagged in `changed` lies not wholly inside `box` (frame pixels).
    func flagsBlock(outside box: PixelRect, in changed: [Bool]) -> Bool {
        guard changed.count == blocksAcross * blocksDown else { return true }
        return changed.indices.contains { index in
            changed[index] && !box.contains(frameRect(blockX: index % blocksAcross, blockY: index / blocksAcross))
        }
    }

    /// Calls `body` with each block wholly inside `box` (frame pixels).
    private func forEachBlock(inside box: PixelRect, _ body: (_ blockX: Int, _ blockY: Int) -> Void) {
        let left = Int((Double(max(box.x, 0)) * scale).rounded(.up))
        let top = Int((Double(max(box.y, 0)) * scale).rounded(.up))
        let right = Int((Double(box.maxX) * scale).rounded(.down))
        let bottom = Int((Double(box.maxY) * scale).rounded(.down))
        let firstX = (left + Self.block - 1) / Self.block
        let firstY = (top + Self.block - 1) / Self.block
        for blockY in firstY..<max(firstY, blocksDown) {
            guard min((blockY + 1) * Self.block, height) <= bottom else { break }
            for blockX in firstX..<max(firstX, blocksAcross) {
                guard min((blockX + 1) * Self.block, width) <= right else { break }
                body(blockX, blockY)
            }
        }
    }

    /// The block's box in frame pixels (rounded outwards).
    func frameRect(blockX: Int, blockY: Int) -> PixelRect {
        let inverse = 1 / scale
        let left = Int((Double(blockX * Self.block) * inverse).rounded(.down))
        let top = Int((Double(blockY * Self.block) * inverse).rounded(.down))
        let right = Int((Double(min((blockX + 1) * Self.block, width)) * inverse).rounded(.up))
        let bottom = Int((Double(min((blockY + 1) * Self.block, height)) * inverse).rounded(.up))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    private func adopt(size thumbnail: LumaThumbnail) {
        guard thumbnail.width != width || thumbnail.height != height else { return }
        width = thumbnail.width
        height = thumbnail.height
        scale = thumbnail.scale
        blocksAcross = (width + Self.block - 1) / Self.block
        blocksDown = (height + Self.block - 1) / Self.block
        pixels = Array(repeating: 0, count: width * height)
        columnDifferences = Array(repeating: 0, count: width)
        searchedAtMs = Array(repeating: nil, count: blocksAcross * blocksDown)
    }

    /// Fills `columnDifferences` with each column's sum of absolute differences between the
    /// thumbnail and the searched picture over the rows of block row `blockY`: whole rows at
    /// a time, a loop the compiler vectorises (block by block it ran 16 pixels at a time).
    private func sumDifferences(blockY: Int, in thumbnail: LumaThumbnail) {
        let top = blockY * Self.block
        let bottom = min(top + Self.block, height)
        let width = width
        columnDifferences.withUnsafeMutableBufferPointer { sums in
            guard let sums = sums.baseAddress else { return }
            sums.update(repeating: 0, count: width)
            pixels.withUnsafeBufferPointer { searched in
                guard let searched = searched.baseAddress else { return }
                for y in top..<bottom {
                    guard let row = thumbnail.row(y) else { continue }
                    let was = searched + y * width
                    for x in 0..<width { sums[x] &+= UInt32(max(was[x], row[x]) &- min(was[x], row[x])) }
                }
            }
        }
    }

    /// Whether the block differs from what searches saw there (`sumDifferences` of its row first).
    private func differs(blockX: Int, blockY: Int) -> Bool {
        let left = blockX * Self.block
        let right = min(left + Self.block, width)
        let top = blockY * Self.block
        let bottom = min(top + Self.block, height)
        var total = 0
        for x in left..<right { total += Int(columnDifferences[x]) }
        return Double(total) > BlockChange.threshold * Double((bottom - top) * (right - left))
    }

    private func copyBlock(blockX: Int, blockY: Int, from thumbnail: LumaThumbnail) {
        let left = blockX * Self.block
        let right = min(left + Self.block, width)
        let top = blockY * Self.block
        let bottom = min(top + Self.block, height)
        pixels.withUnsafeMutableBufferPointer { searched in
            for y in top..<bottom {
                guard let row = thumbnail.row(y) else { continue }
                let base = y * width
                for x in left..<right { searched[base + x] = row[x] }
            }
        }
    }
}
