import COpenCVShim

/// The grey picture a detector searches (a frame's Y plane, possibly shrunk) and the way
/// back from its coordinates to the frame's.
struct DetectionImage {
    let grey: allspark_grey_image
    let frameWidth: Int
    let frameHeight: Int

    /// Maps a box found in `grey` to the frame, rounding outwards so that shrinking never
    /// cuts a face edge off the mask.
    func frameRect(of found: allspark_rect) -> PixelRect {
        let scaleX = Double(frameWidth) / Double(grey.width)
        let scaleY = Double(frameHeight) / Double(grey.height)
        let left = Int((Double(found.x) * scaleX).rounded(.down))
        let top = Int((Double(found.y) * scaleY).rounded(.down))
        let right = Int((Double(found.x + found.width) * scaleX).rounded(.up))
        let bottom = Int((Double(found.y + found.height) * scaleY).rounded(.up))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
            .clamped(toWidth: frameWidth, height: frameHeight)
    }
}
