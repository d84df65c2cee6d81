import CFFmpeg

/// One place in the delay line: a frame held until a search at or after it is done, its
/// tracking thumbnail, and what it will be masked with. The picture buffer and the
/// thumbnail are lent by the delay line's pools while the slot holds a frame; the
/// thumbnail may stay after the frame's release, while tracking or the changed-region
/// searches still read it (`DelayLineMasker`).
final class DelayLineSlot {
    private var picture: OwnedFrame?
    private var lentThumbnail: LumaThumbnail?
    private(set) var captureTimeMs: Int64 = 0
    /// Faces to mask in this frame: found in it, or carried to it from searched frames.
    private(set) var boxes: [TrackedBox] = []
    /// Bands to mask beside what is crossing an edge in this frame or crossed it lately (`EdgeGuard`, `EdgeWatch`).
    var guardedBands: [PixelRect] = []
    /// Set when this frame was searched.
    var detectionMs: Double?
    /// Faces its search found that no track followed yet.
    var appeared = 0
    /// A search this frame waited for failed: it leaves masked whole.
    var failure: PrivacyError?

    init() {
        boxes.reserveCapacity(32)
        guardedBands.reserveCapacity(EdgeWatch.capacity)
    }

    /// The held frame's picture buffer.
    var frame: OwnedFrame {
        guard let picture else { preconditionFailure("a delay-line slot read while it holds no frame") }
        return picture
    }

    /// The frame's tracking thumbnail, until `giveBackThumbnail`.
    var thumbnail: LumaThumbnail {
        guard let lentThumbnail else { preconditionFailure("a delay-line slot's thumbnail read after it was given back") }
        return lentThumbnail
    }

    /// Copies `source` into `buffer`, which the slot keeps until `giveBackPicture`, makes
    /// `thumbnail` its thumbnail (kept until `giveBackThumbnail`), and starts the slot afresh.
    func store(
        _ source: YUV420Frame, in buffer: OwnedFrame, thumbnail: LumaThumbnail, scaler: GreyScaler, captureTimeMs: Int64,
        flow: BoxFlow.Settings
    ) throws {
        precondition(picture == nil, "a delay-line slot given a second picture")
        precondition(lentThumbnail == nil, "a delay-line slot given a second thumbnail")
        // The encoder may still hold this buffer from its last trip; this copies only then.
        try checkLibav(av_frame_make_writable(buffer.pointer), "making a delay-line buffer writable")
        copy(source, into: buffer.yuv420Picture)
        picture = buffer
        lentThumbnail = thumbnail
        self.captureTimeMs = captureTimeMs
        boxes.removeAll(keepingCapacity: true)
        guardedBands.removeAll(keepingCapacity: true)
        detectionMs = nil
        appeared = 0
        failure = nil
        try thumbnail.update(from: source, scaler: scaler, window: flow.window, levels: flow.levels)
    }

    /// The picture buffer, once its frame has left.
    func giveBackPicture() -> OwnedFrame {
        defer { picture = nil }
        return frame
    }

    /// The thumbnail, once nothing reads it any more (nil if it was given back already).
    func giveBackThumbnail() -> LumaThumbnail? {
        defer { lentThumbnail = nil }
        return lentThumbnail
    }

    /// Adds a face box. A face found in this very frame replaces boxes carried here that
    /// mostly overlap it (the search is the truth; carried boxes only estimate it), and is
    /// not replaced by them; boxes reached two ways that nearly coincide become their
    /// union, as uncertain as the surer of the two (they agree on where the face is).
    func add(_ tracked: TrackedBox) {
        if tracked.growth == 0 {
            boxes.removeAll { $0.box.intersectionOverUnion(tracked.box) >= Self.sameFaceOverlap }
            boxes.append(tracked)
            return
        }
        for index in boxes.indices {
            let kept = boxes[index]
            let overlap = kept.box.intersectionOverUnion(tracked.box)
            if kept.growth == 0 && overlap >= Self.sameFaceOverlap { return }
            if overlap >= Self.sameBoxOverlap {
                boxes[index] = TrackedBox(box: kept.box.union(tracked.box), growth: min(kept.growth, tracked.growth))
                return
            }
        }
        boxes.append(tracked)
    }

    /// A box carried here overlapping a face found here this much (IoU) is that face.
    static let sameFaceOverlap = 0.5
    /// Carried boxes overlapping this much are one face reached two ways.
    static let sameBoxOverlap = 0.8

    private func copy(_ source: YUV420Frame, into target: YUV420Frame) {
        for row in 0..<source.height {
            (target.y + row * target.yStride).update(from: source.y + row * source.yStride, count: source.width)
        }
        for row in 0..<source.chromaHeight {
            (target.u + row * target.uStride).update(from: source.u + row * source.uStride, count: source.chromaWidth)
            (target.v + row * target.vStride).update(from: source.v + row * source.vStride, count: source.chromaWidth)
        }
    }
}
