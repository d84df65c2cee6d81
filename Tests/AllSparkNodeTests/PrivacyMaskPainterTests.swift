import Testing

@testable import AllSparkNode

@Suite("Privacy: painting masks in YUV 4:2:0")
struct PrivacyMaskPainterTests {
    /// Pseudo-random bytes (a fixed LCG), so every pixel differs from its neighbours.
    private func noiseFrame(width: Int, height: Int) -> TestFrame {
        let picture = TestFrame(width: width, height: height)
        var state: UInt32 = 12345
        func next() -> UInt8 {
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        for y in 0..<height {
            for x in 0..<width {
                picture.setLuma(x, y, next())
            }
        }
        for y in 0..<(height + 1) / 2 {
            for x in 0..<(width + 1) / 2 {
                picture.setChroma(x, y, u: next(), v: next())
            }
        }
        return picture
    }

    @Test func chromaAlignmentCoversTheBoxAndKeepsOddFrameEdges() {
        let box = PixelRect(x: 3, y: 5, width: 10, height: 6)
        let aligned = box.alignedToChromaGrid(frameWidth: 13, frameHeight: 11)
        #expect(aligned == PixelRect(x: 2, y: 4, width: 11, height: 7))
        #expect(aligned.intersection(box) == box)
    }

    @Test(arguments: [(64, 48), (63, 47)])
    func mosaicChangesOnlyTheBoxAndLeavesFewBlocks(width: Int, height: Int) {
        let picture = noiseFrame(width: width, height: height)
        let before = picture.bytes
        let box = PixelRect(x: 9, y: 7, width: 60, height: 40)
            .clamped(toWidth: width, height: height)
            .alignedToChromaGrid(frameWidth: width, frameHeight: height)
        let painter = MaskPainter(style: .mosaic, blocksAcross: 8)

        painter.paint(box, in: picture.frame)

        #expect(picture.changesOutside([box], comparedTo: before) == 0)
        for y in box.y..<box.maxY {
            var runs = 1
            for x in (box.x + 1)..<box.maxX where picture.luma(x, y) != picture.luma(x - 1, y) {
                runs += 1
            }
            #expect(runs <= 8, "row \(y) has \(runs) blocks")
        }
        #expect(painter.blockSize(for: box) * 8 >= max(box.width, box.height))
    }

    @Test func fillPaintsVideoBlackInsideOnly() {
        let picture = noiseFrame(width: 40, height: 30)
        let before = picture.bytes
        let box = PixelRect(x: 4, y: 6, width: 10, height: 8)

        MaskPainter(style: .fill, blocksAcross: 8).paint(box, in: picture.frame)

        #expect(picture.changesOutside([box], comparedTo: before) == 0)
        let frame = picture.frame
        for y in box.y..<box.maxY {
            for x in box.x..<box.maxX {
                #expect(picture.luma(x, y) == MaskPainter.fillLuma)
                #expect(frame.u[(y / 2) * frame.uStride + x / 2] == MaskPainter.fillChroma)
                #expect(frame.v[(y / 2) * frame.vStride + x / 2] == MaskPainter.fillChroma)
            }
        }
    }
    @Test("mosaic cells lie on a grid fixed to the frame, each filling whole 8x8 blocks, and cover the box")
    func mosaicCellsFillWholeTransformBlocks() {
        let picture = noiseFrame(width: 1280, height: 720)
        let painter = MaskPainter(style: .mosaic, blocksAcross: 6)
        for box in [PixelRect(x: 101, y: 67, width: 90, height: 130), PixelRect(x: 1213, y: 650, width: 66, height: 70)] {
            let inside = box.clamped(toWidth: 1280, height: 720).alignedToChromaGrid(frameWidth: 1280, frameHeight: 720)
            let area = painter.area(for: inside, frameWidth: 1280, frameHeight: 720)
            let cell = painter.cellSize(for: area)
            #expect(cell % 8 == 0 && cell >= painter.blockSize(for: inside), "cell \(cell)")
            #expect(area.contains(inside) && area.x % cell == 0 && area.y % cell == 0, "\(area) for \(inside)")
            painter.paint(area, in: picture.frame)
            // Every 8x8 block of the area is one flat value: the encoder codes it as such.
            for blockY in stride(from: area.y, to: area.maxY, by: 8) {
                for blockX in stride(from: area.x, to: area.maxX, by: 8) {
                    let value = picture.luma(blockX, blockY)
                    let flat = (blockY..<min(blockY + 8, area.maxY)).allSatisfy { y in
                        (blockX..<min(blockX + 8, area.maxX)).allSatisfy { picture.luma($0, y) == value }
                    }
                    #expect(flat, "block at \(blockX),\(blockY) of \(area)")
                }
            }
        }
    }

    @Test("each mosaic cell is the rounded mean of what it covered, in Y, U and V; a wider box after a narrower one too")
    func mosaicCellsAreTheirMeans() {
        let painter = MaskPainter(style: .mosaic, blocksAcross: 6)
        for (width, box) in [(1280, PixelRect(x: 96, y: 64, width: 240, height: 300)), (2600, PixelRect(x: 0, y: 8, width: 2600, height: 40))] {
            let picture = noiseFrame(width: width, height: 320)
            let before = TestFrame(width: width, height: 320)
            for y in 0..<320 { for x in 0..<width { before.setLuma(x, y, picture.luma(x, y)) } }
            let chromaBefore = (0..<160).map { y in (0..<(width / 2)).map { x in (picture.frame.u[y * picture.frame.uStride + x], picture.frame.v[y * picture.frame.vStride + x]) } }
            let area = painter.area(for: box, frameWidth: width, frameHeight: 320)
            let cell = painter.cellSize(for: area)
            painter.paint(area, in: picture.frame)
            let chroma = MaskPainter.chromaRect(of: area)
            for (plane, rect, side) in [(0, area, cell), (1, chroma, cell / 2), (2, chroma, cell / 2)] {
                for top in stride(from: rect.y, to: rect.maxY, by: side) {
                    for left in stride(from: rect.x, to: rect.maxX, by: side) {
                        let rows = top..<min(rect.maxY, top + side)
                        let columns = left..<min(rect.maxX, left + side)
                        func value(_ x: Int, _ y: Int, painted: Bool) -> Int {
                            switch plane {
                            case 0: Int(painted ? picture.luma(x, y) : before.luma(x, y))
                            case 1: Int(painted ? picture.frame.u[y * picture.frame.uStride + x] : chromaBefore[y][x].0)
                            default: Int(painted ? picture.frame.v[y * picture.frame.vStride + x] : chromaBefore[y][x].1)
                            }
                        }
                        let sum = rows.reduce(0) { total, y in columns.reduce(total) { $0 + value($1, y, painted: false) } }
                        let count = rows.count * columns.count
                        let mean = (sum + count / 2) / count
                        let flat = rows.allSatisfy { y in columns.allSatisfy { value($0, y, painted: true) == mean } }
                        #expect(flat, "plane \(plane) cell at \(left),\(top) of \(rect) is not its mean \(mean)")
                    }
                }
            }
        }
    }
}
