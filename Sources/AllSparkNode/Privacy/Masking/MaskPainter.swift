/// How a masked box looks.
public enum MaskStyle: String, Sendable, CaseIterable {
    /// A coarse mosaic: each block is replaced by its mean, in Y, U and V.
    case mosaic
    /// Video black (Y 16, U and V 128).
    case fill
}

/// Paints masks into a YUV 4:2:0 frame in place, touching only pixels inside each box.
struct MaskPainter {
    static let fillLuma: UInt8 = 16
    static let fillChroma: UInt8 = 128
    /// Smallest mosaic block, in luma pixels, so tiny faces still lose their detail.
    static let minimumBlockSize = 4

    let style: MaskStyle
    /// At most this many mosaic blocks across the box's larger side: few enough that
    /// the face inside (smaller than the box by its margin) cannot be recognised.
    let blocksAcross: Int

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

    private func pixelate(_ box: PixelRect, in frame: YUV420Frame) {
        let block = Double(blockSize(for: box))
        // Whole blocks spread evenly over the box: no thin leftover strip keeps detail.
        let columns = max(1, Int((Double(box.width) / block).rounded()))
        let rows = max(1, Int((Double(box.height) / block).rounded()))
        Self.mosaic(frame.y, stride: frame.yStride, box, columns: columns, rows: rows)
        let chroma = Self.chromaRect(of: box)
        let chromaColumns = min(columns, chroma.width)
        let chromaRows = min(rows, chroma.height)
        Self.mosaic(frame.u, stride: frame.uStride, chroma, columns: chromaColumns, rows: chromaRows)
        Self.mosaic(frame.v, stride: frame.vStride, chroma, columns: chromaColumns, rows: chromaRows)
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

    private static func mosaic(
        _ plane: UnsafeMutablePointer<UInt8>, stride: Int, _ area: PixelRect, columns: Int, rows: Int
    ) {
        guard !area.isEmpty else { return }
        for blockRow in 0..<rows {
            let top = area.y + blockRow * area.height / rows
            let bottom = area.y + (blockRow + 1) * area.height / rows
            for blockColumn in 0..<columns {
                let left = area.x + blockColumn * area.width / columns
                let right = area.x + (blockColumn + 1) * area.width / columns
                let block = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
                fill(plane, stride: stride, block, with: mean(plane, stride: stride, block))
            }
        }
    }

    private static func mean(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, _ area: PixelRect) -> UInt8 {
        var sum = 0
        for row in area.y..<area.maxY {
            let line = plane + row * stride
            for column in area.x..<area.maxX {
                sum += Int(line[column])
            }
        }
        return UInt8((sum + area.area / 2) / area.area)
    }
}
