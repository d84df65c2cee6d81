import CFFmpeg

/// Masks live video with a detector too slow to run on every frame, without ever letting
/// an unchecked frame out. The recorder's privacy pass.
///
/// Each frame is copied into one of `capacity` preallocated buffers (the delay line).
/// Whenever the detection thread is idle it takes the newest frame, so detection samples
/// as often as it keeps up (every frame when it is fast enough). The oldest frame leaves
/// only once a frame at or after it has been searched; it is masked with the boxes of that
/// next searched frame and of every searched frame up to `holdMs` before it, each grown
/// for the motion possible in the frames between (`motionPerFrame`). A face found in a
/// sampled frame is so masked from the previous sample until `holdMs` after it; what can
/// slip through is a face seen only between samples that are all further than `holdMs`
/// apart, or one moving faster than the growth.
///
/// When the delay line is full the caller waits for detection (a live source then lags).
/// Not thread-safe: one recording thread pushes; detection runs on its own thread.
public final class DelayLineMasker: LiveFrameMasking {
    public struct Settings: Sendable, Equatable {
        /// Buffers in the delay line: frames of latency at most, and the memory cost.
        public var capacity: Int
        /// How long a searched frame's boxes stay masked in later frames. Time, not
        /// frames: samples are several frames apart, and cascades miss a face in some of
        /// them; one second bridges two or three missed samples at 720p.
        public var holdMs: Int64
        public var marginPerSide: Double
        /// Extra growth per side, as a fraction of the box, per frame between the frame
        /// and the sample whose box it gets (0.03: a 100 px face may move 3 px a frame).
        public var motionPerFrame: Double
        /// Growth for motion stops here.
        public var maximumMotionGrowth: Double
        public var style: MaskStyle
        public var blocksAcross: Int
        /// Search every frame, in order, instead of the newest: no face the cascades can
        /// find escapes, and a live source loses the frames detection cannot keep up with.
        public var searchesEveryFrame: Bool

        public init(
            capacity: Int = 24, holdMs: Int64 = 1000, searchesEveryFrame: Bool = false, marginPerSide: Double = 0.25, motionPerFrame: Double = 0.03,
            maximumMotionGrowth: Double = 0.5, style: MaskStyle = .pixelate, blocksAcross: Int = 6
        ) {
            self.capacity = capacity
            self.holdMs = holdMs
            self.searchesEveryFrame = searchesEveryFrame
            self.marginPerSide = marginPerSide
            self.motionPerFrame = motionPerFrame
            self.maximumMotionGrowth = maximumMotionGrowth
            self.style = style
            self.blocksAcross = blocksAcross
        }
    }

    public let settings: Settings
    public let counters: PrivacyCounters
    public let width: Int
    public let height: Int
    /// Frames searched so far, and times `push` had to wait for detection.
    public private(set) var framesSearched = 0
    public private(set) var waitsForDetection = 0

    private let worker: DetectionWorker
    private let painter: MaskPainter
    private var slots: [OwnedFrame] = []
    private var slotCaptureMs: [Int64]
    /// Frame number of the oldest frame held, and how many are held (in slot order, modulo capacity).
    private var oldest = 0
    private var held = 0
    private var lastSubmitted = -1
    /// Results of searched frames, oldest first, kept while a held frame may still use them.
    private var samples: [DetectionResult] = []
    private var boxes: [PixelRect] = []

    /// - Throws: whatever `makeDetectors` throws (a missing cascade), or a libav error.
    public init(
        width: Int, height: Int, settings: Settings = Settings(), counters: PrivacyCounters = PrivacyCounters(),
        makeDetectors: @escaping @Sendable () throws -> [any RegionDetector]
    ) throws {
        guard settings.capacity >= 2 else { throw PrivacyError.invalidSettings("delay line of \(settings.capacity) frames") }
        guard settings.holdMs >= 0, settings.motionPerFrame >= 0, settings.blocksAcross >= 1 else {
            throw PrivacyError.invalidSettings("negative hold or motion, or no mosaic blocks")
        }
        self.width = width
        self.height = height
        self.settings = settings
        self.counters = counters
        painter = MaskPainter(style: settings.style, blocksAcross: settings.blocksAcross)
        slotCaptureMs = Array(repeating: 0, count: settings.capacity)
        for _ in 0..<settings.capacity {
            slots.append(try OwnedFrame(width: width, height: height, format: AV_PIX_FMT_YUV420P))
        }
        worker = try DetectionWorker(makeDetectors: makeDetectors)
        // Enough for a sample per frame over the hold at 60 fps, so steady state never grows it.
        samples.reserveCapacity(settings.capacity + Int(settings.holdMs / 16) + 2)
        boxes.reserveCapacity(64)
    }

    deinit { worker.stop() }

    /// Copies `picture` into the delay line, then hands every frame that may leave to
    /// `emit`, oldest first.
    public func push(_ picture: YUV420Frame, captureTimeMs: Int64, emit: (MaskedFrame) throws -> Void) throws {
        guard picture.width == width, picture.height == height else {
            throw PrivacyError.invalidSettings("frame \(picture.width)x\(picture.height) in a \(width)x\(height) delay line")
        }
        while held == settings.capacity {
            if let result = worker.takeResultIfDone() {
                record(result)
            } else if worker.isBusy {
                waitsForDetection += 1
                record(worker.waitForResult())
            } else {
                submit(nextToSearch)
            }
            try release(emit)
        }
        let number = oldest + held
        let slot = slots[number % settings.capacity]
        // The encoder may still hold this buffer from its last trip; this copies only then.
        try checkLibav(av_frame_make_writable(slot.pointer), "making a delay-line buffer writable")
        copy(picture, into: slot.yuv420Picture)
        slotCaptureMs[number % settings.capacity] = captureTimeMs
        held += 1
        if let result = worker.takeResultIfDone() { record(result) }
        if !worker.isBusy { submit(nextToSearch) }
        try release(emit)
    }

    /// The newest frame held, or with `searchesEveryFrame` the oldest not yet searched.
    private var nextToSearch: Int {
        settings.searchesEveryFrame ? lastSubmitted + 1 : oldest + held - 1
    }

    public func push(_ frame: CapturedFrame, emit: (MaskedFrame) throws -> Void) throws {
        try push(frame.picture, captureTimeMs: frame.captureTimeMs, emit: emit)
    }

    /// Searches the newest frame if it was not, and lets every frame out.
    public func finish(emit: (MaskedFrame) throws -> Void) throws {
        guard held > 0 else { return }
        let newest = oldest + held - 1
        if worker.isBusy { record(worker.waitForResult()) }
        while lastSubmitted < newest {
            submit(settings.searchesEveryFrame ? lastSubmitted + 1 : newest)
            record(worker.waitForResult())
        }
        try release(emit)
    }

    private func submit(_ number: Int) {
        lastSubmitted = number
        let slot = number % settings.capacity
        worker.submit(DetectionJob(frameNumber: number, captureTimeMs: slotCaptureMs[slot], picture: slots[slot].yuv420Picture))
    }

    private func record(_ result: DetectionResult) {
        framesSearched += 1
        samples.append(result)
    }

    private func release(_ emit: (MaskedFrame) throws -> Void) throws {
        while held > 0, let next = samples.firstIndex(where: { $0.frameNumber >= oldest }) {
            let number = oldest
            let slot = slots[number % settings.capacity]
            let picture = slot.yuv420Picture
            let captureTimeMs = slotCaptureMs[number % settings.capacity]
            let failure = collectBoxes(for: number, capturedAtMs: captureTimeMs, nextSample: next)
            for box in boxes { painter.paint(box, in: picture) }
            let detectionMs = samples[next].frameNumber == number ? samples[next].detectionMs : nil
            if let failure {
                counters.recordFailure(failure, detectionMs: detectionMs)
            } else {
                counters.recordFrame(masked: boxes.count, appeared: 0, detectionMs: detectionMs)
            }
            oldest += 1
            held -= 1
            let holdStartMs = captureTimeMs - settings.holdMs
            samples.removeAll { $0.frameNumber < oldest && $0.captureTimeMs < holdStartMs }
            try emit(MaskedFrame(picture: picture, captureTimeMs: captureTimeMs, maskedBoxes: boxes, avFrame: slot.pointer))
        }
    }

    /// The boxes for frame `number`, grown for margin and motion: those of the next sample
    /// and of the last sample before it, and, within the hold, those of older samples
    /// whose face no newer sample found again (a held face the cascades missed). The whole
    /// frame (and the failure) if any of them failed.
    private func collectBoxes(for number: Int, capturedAtMs: Int64, nextSample: Int) -> PrivacyError? {
        boxes.removeAll(keepingCapacity: true)
        let holdStartMs = capturedAtMs - settings.holdMs
        for index in samples[...nextSample].indices.reversed() {
            let sample = samples[index]
            let isNeighbour = index == nextSample || samples[index + 1].frameNumber >= number
            guard isNeighbour || sample.captureTimeMs >= holdStartMs else { continue }
            if let failure = sample.failure {
                boxes.removeAll(keepingCapacity: true)
                boxes.append(PixelRect(x: 0, y: 0, width: width, height: height))
                return failure
            }
            let distance = abs(sample.frameNumber - number)
            let growth = settings.marginPerSide + min(settings.maximumMotionGrowth, settings.motionPerFrame * Double(distance))
            for found in sample.boxes where isNeighbour || !isFoundAgain(found, after: index, through: nextSample) {
                let box = found.grown(byFractionPerSide: growth)
                    .clamped(toWidth: width, height: height)
                    .alignedToChromaGrid(frameWidth: width, frameHeight: height)
                if !box.isEmpty { boxes.append(box) }
            }
        }
        return nil
    }

    /// Whether a sample after `index`, up to `last`, found the face of `box` (by overlap).
    private func isFoundAgain(_ box: PixelRect, after index: Int, through last: Int) -> Bool {
        for later in samples[(index + 1)...last] {
            for found in later.boxes where found.intersectionOverUnion(box) >= Self.sameFaceOverlap {
                return true
            }
        }
        return false
    }

    /// Boxes of two samples overlapping this much (IoU) are taken for the same face.
    static let sameFaceOverlap = 0.3

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
