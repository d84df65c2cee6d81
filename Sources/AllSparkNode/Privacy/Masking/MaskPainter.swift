/// How a masked box looks.
public enum MaskStyle: String, Sendable, CaseIterable {
    /// A coarse mosaic: each cell is replaced by its mean, in Y, U and V.
    case mosaic
    /// Video black (Y 16, U and V 128).
    case fill
}

/// Paints masks into a YUV 4:2:0 frame in place, touching only pixels inside each box.
///
/// Mosaic cells are squares on a grid fixed to the frame, their side a multiple of 8: each
/// cell fills whole 8x8 transform blocks of the encoder, which codes it as one flat value,
/// and the cells stay put while the face moves beneath them. A mosaic that moved with its
/// box made a clip of moving faces 31% larger (bench/history/14).
struct MaskPainter {
    static let fillLuma: UInt8 = 16
    static let fillChroma: UInt8 = 128
    /// Smallest mosaic block, in luma pixels, so tiny faces still lose their detail.
    static let minimumBlockSize = 4

    let style: MaskStyle
    /// At most this many mosaic blocks across the box's larger side: few enough that
    /// the face inside (smaller than the box by its margin) cannot be recognised.
    let blocksAcross: Int
    /// The mosaic's scratch rows, shared by every box this painter paints.
    private let cells = MosaicCells()

    /// `box` must lie inside the frame and be aligned to the chroma grid
    /// (`PixelRect.alignedToChromaGrid`), so that its chroma samples belong to it alone.
    func paint(_ box: PixelRect, in frame: YUV420Frame) {
        switch style {
        case .fill:
            Self.fill(box, in: frame)
        case .mosaic:
            pixelate(box, in: frame)
        }
    }

    static func fill(_ box: PixelRect, in frame: YUV420Frame) {
        fill(frame.y, stride: frame.yStride, box, with: fillLuma)
        let chroma = chromaRect(of: box)
        fill(frame.u, stride: frame.uStride, chroma, with: fillChroma)
        fill(frame.v, stride: frame.vStride, chroma, with: fillChroma)
    }

    /// Luma block side for `box`: at least `box`'s larger side / `blocksAcross`.
    func blockSize(for box: PixelRect) -> Int {
        let side = max(box.width, box.height)
        return max(Self.minimumBlockSize, (side + blocksAcross - 1) / blocksAcross)
    }

    /// Side of the mosaic's cells for `box`: its block size, rounded up to whole transform blocks.
    func cellSize(for box: PixelRect) -> Int {
        (blockSize(for: box) + Self.transformBlock - 1) / Self.transformBlock * Self.transformBlock
    }

    static let transformBlock = 8

    /// What `paint` should be given to mask `box`: `box` cut to the frame and aligned to the
    /// chroma grid, and for a mosaic grown out to whole cells of its grid (inside the frame),
    /// so that no thin strip of a cell keeps detail at its sides.
    func area(for box: PixelRect, frameWidth: Int, frameHeight: Int) -> PixelRect {
        let box = box.clamped(toWidth: frameWidth, height: frameHeight)
            .alignedToChromaGrid(frameWidth: frameWidth, frameHeight: frameHeight)
        guard style == .mosaic, !box.isEmpty else { return box }
        var area = box
        // A larger area may need larger cells; cells grow with the area, so this settles.
        for _ in 0..<4 {
            let cell = cellSize(for: area)
            let left = box.x / cell * cell
            let top = box.y / cell * cell
            let grown = PixelRect(
                x: left, y: top, width: (box.maxX + cell - 1) / cell * cell - left,
                height: (box.maxY + cell - 1) / cell * cell - top)
            if grown == area { break }
            area = grown
        }
        return area.clamped(toWidth: frameWidth, height: frameHeight).alignedToChromaGrid(frameWidth: frameWidth, frameHeight: frameHeight)
    }

    private func pixelate(_ box: PixelRect, in frame: YUV420Frame) {
        let cell = cellSize(for: box)
        cells.pixelate(frame.y, stride: frame.yStride, box, cell: cell)
        let chroma = Self.chromaRect(of: box)
        cells.pixelate(frame.u, stride: frame.uStride, chroma, cell: cell / 2)
        cells.pixelate(frame.v, stride: frame.vStride, chroma, cell: cell / 2)
    }

    /// The chroma samples of a chroma-aligned luma box.
    static func chromaRect(of box: PixelRect) -> PixelRect {
        let left = box.x / 2
        let top = box.y / 2
        return PixelRect(x: left, y: top, width: (box.maxX + 1) / 2 - left, height: (box.maxY + 1) / 2 - top)
    }

    private static func fill(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, _ area: PixelRect, with value: UInt8) {
        guard !area.isEmpty else { return }
        for row in area.y..<area.maxY {
            (plane + row * stride + area.x).update(repeating: value, count: area.width)
        }
    }
}
