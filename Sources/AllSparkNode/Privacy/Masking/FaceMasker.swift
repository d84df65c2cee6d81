/// Masks, in place, every face its detectors find, before the frame is encoded.
///
/// Per frame: detect; grow each box by `marginPerSide`; hold boxes for `holdFrames`
/// frames after their last detection; paint every held box (`MaskStyle`).
///
/// Fails closed: creating it throws if a cascade cannot load (the node refuses to start),
/// and if detection fails on a frame, the whole frame is filled with video black and
/// counted in `PrivacyCounters.Snapshot.framesFailedClosed`, so `mask` never lets an
/// unchecked frame through and never throws.
///
/// Allocates nothing per frame once its arrays have grown to the busiest frame seen.
/// Not safe to use from two threads at once; `counters` is.
public final class FaceMasker: FrameMasking {
    public struct Settings: Sendable, Equatable {
        /// Frames a box stays masked after its face was last detected.
        public var holdFrames: Int
        /// Each side of a detected box moves out by this fraction of the box's width
        /// (left, right) or height (top, bottom): 0.25 makes a box 1.5 times as wide and
        /// tall, covering hair, ears and chin that cascades leave out.
        public var marginPerSide: Double
        public var style: MaskStyle
        /// Mosaic blocks across a masked box's larger side, at most. At 8 the frontal
        /// cascade still found the Carphone face in its own mosaic; at 6 (4 blocks across
        /// the face inside the margin) it no longer does.
        public var blocksAcross: Int

        public init(holdFrames: Int = 8, marginPerSide: Double = 0.25, style: MaskStyle = .mosaic, blocksAcross: Int = 6) {
            self.holdFrames = holdFrames
            self.marginPerSide = marginPerSide
            self.style = style
            self.blocksAcross = blocksAcross
        }

        func validate() throws(PrivacyError) {
            guard holdFrames >= 0 else { throw .invalidSettings("hold frames \(holdFrames) is negative") }
            guard marginPerSide >= 0, marginPerSide <= 2 else {
                throw .invalidSettings("margin per side \(marginPerSide) is outside 0...2")
            }
            guard blocksAcross >= 1 else { throw .invalidSettings("blocks across \(blocksAcross) is below 1") }
        }
    }

    public let settings: Settings
    public let counters: PrivacyCounters
    /// The boxes painted into the last frame, in its pixel coordinates (margin and 4:2:0
    /// alignment included): the whole frame if detection failed; empty before any frame.
    /// Every pixel outside them was left as it was.
    public private(set) var lastMaskedBoxes: [PixelRect] = []

    private let detectors: [any RegionDetector]
    private let painter: MaskPainter
    private var hold: MaskHold
    private var detections: [PixelRect] = []
    private let clock = ContinuousClock()

    public init(
        detectors: [any RegionDetector], settings: Settings = Settings(), counters: PrivacyCounters = PrivacyCounters()
    ) throws(PrivacyError) {
        try settings.validate()
        guard !detectors.isEmpty else { throw .invalidSettings("no detectors") }
        self.detectors = detectors
        self.settings = settings
        self.counters = counters
        self.painter = MaskPainter(style: settings.style, blocksAcross: settings.blocksAcross)
        self.hold = MaskHold(holdFrames: settings.holdFrames)
        detections.reserveCapacity(64)
        lastMaskedBoxes.reserveCapacity(64)
    }

    /// A masker over one `CascadeFaceDetector`.
    /// - Throws: `PrivacyError.cascadeUnavailable` naming a cascade file that cannot load.
    public convenience init(
        faceDetection: FaceDetectionSettings = FaceDetectionSettings(),
        settings: Settings = Settings(),
        counters: PrivacyCounters = PrivacyCounters()
    ) throws(PrivacyError) {
        try self.init(detectors: [CascadeFaceDetector(settings: faceDetection)], settings: settings, counters: counters)
    }

    public func mask(_ frame: YUV420Frame, captureTimeMs: Int64) {
        let start = clock.now
        detections.removeAll(keepingCapacity: true)
        do {
            for detector in detectors {
                try detector.detect(in: frame, appendingTo: &detections)
            }
        } catch {
            maskWholeFrame(frame)
            counters.recordFailure(error, detectionMs: milliseconds(since: start))
            return
        }
        let detectionMs = milliseconds(since: start)
        for index in detections.indices {
            detections[index] = maskArea(of: detections[index], in: frame)
        }
        let appeared = hold.advance(seeing: detections)
        lastMaskedBoxes.removeAll(keepingCapacity: true)
        for track in hold.tracks {
            // Held boxes are re-fitted in case the frame size changed since they were seen.
            let box = painter.area(for: track.box, frameWidth: frame.width, frameHeight: frame.height)
            guard !box.isEmpty else { continue }
            painter.paint(box, in: frame)
            lastMaskedBoxes.append(box)
        }
        counters.recordFrame(masked: lastMaskedBoxes.count, appeared: appeared, detectionMs: detectionMs)
    }

    private func maskArea(of detection: PixelRect, in frame: YUV420Frame) -> PixelRect {
        detection.grown(byFractionPerSide: settings.marginPerSide)
            .clamped(toWidth: frame.width, height: frame.height)
            .alignedToChromaGrid(frameWidth: frame.width, frameHeight: frame.height)
    }

    private func maskWholeFrame(_ frame: YUV420Frame) {
        let whole = PixelRect(x: 0, y: 0, width: max(0, frame.width), height: max(0, frame.height))
        MaskPainter.fill(whole, in: frame)
        lastMaskedBoxes.removeAll(keepingCapacity: true)
        lastMaskedBoxes.append(whole)
    }

    private func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: clock.now).components
        return Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
    }
}
