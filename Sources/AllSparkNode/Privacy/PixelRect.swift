/// An axis-aligned box in a frame's pixel coordinates: columns `x ..< maxX`, rows `y ..< maxY`.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var area: Int { isEmpty ? 0 : width * height }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    /// Whether `other` lies wholly inside this box.
    public func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// The common part; empty (zero size) when the boxes do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The smallest box holding both.
    public func union(_ other: PixelRect) -> PixelRect {
        let left = min(x, other.x)
        let top = min(y, other.y)
        return PixelRect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    public func intersectionOverUnion(_ other: PixelRect) -> Double {
        let shared = intersection(other).area
        let combined = area + other.area - shared
        return combined > 0 ? Double(shared) / Double(combined) : 0
    }

    /// Grows each side outwards by `fraction` of the box's own width (left, right) or
    /// height (top, bottom), rounding outwards.
    public func grown(byFractionPerSide fraction: Double) -> PixelRect {
        let dx = Int((Double(width) * fraction).rounded(.up))
        let dy = Int((Double(height) * fraction).rounded(.up))
        return PixelRect(x: x - dx, y: y - dy, width: width + 2 * dx, height: height + 2 * dy)
    }

    /// The part inside a `width` x `height` frame.
    public func clamped(toWidth frameWidth: Int, height frameHeight: Int) -> PixelRect {
        intersection(PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight))
    }

    /// Grows the box to whole 2x2 luma blocks, so that in 4:2:0 every chroma sample it
    /// touches belongs to luma pixels inside it (nothing outside the box changes colour).
    /// An edge may stay odd only where it is the frame's own odd edge.
    public func alignedToChromaGrid(frameWidth: Int, frameHeight: Int) -> PixelRect {
        let left = x & ~1
        let top = y & ~1
        let right = min((maxX + 1) & ~1, frameWidth)
        let bottom = min((maxY + 1) & ~1, frameHeight)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}
