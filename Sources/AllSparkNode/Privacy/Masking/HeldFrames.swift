/// The frames a delay line holds, numbered as they came in, as its face tracker and its
/// search schedule see them: their thumbnails and capture times, and the masks of each.
protocol HeldFrames: AnyObject {
    /// Frame numbers of the oldest frame held and the newest.
    var oldest: Int { get }
    var newest: Int { get }
    /// Frame `number`'s tracking thumbnail (the frame before the oldest's too, while the
    /// newest is tracked from it).
    func thumbnail(of number: Int) -> LumaThumbnail
    func captureTimeMs(of number: Int) -> Int64
    /// Adds a face box to frame `number`'s masks.
    func add(_ face: TrackedBox, to number: Int)
}
