import CFFmpeg
import Foundation
import Logging

/// The capture → privacy → encode → store path, run on the recorder's own thread.
///
/// One encoder serves consecutive chunks: the first frame of each chunk is sent as a
/// forced IDR frame, and packets are routed to the next chunk's file when that IDR comes
/// out of the encoder. So chunks are cut at frame precision and each starts with a
/// keyframe, without draining the encoder at every boundary. The encoder is drained only
/// when its own settings change, the source fails, or the node stops.
final class RecordingLoop {
    private let captureSettings: CaptureSettings
    private let store: ChunkStore
    private let makeMasker: LiveMaskingFactory
    /// The privacy pass for the current capture size; rebuilt when the size changes.
    private var masker: (any LiveFrameMasking)?
    /// The current capture's dropped frames already added to `framesDropped`.
    private var captureDropsCounted = 0
    private var maskerWidth = 0
    private var maskerHeight = 0
    private let control: RecorderControl
    /// Live viewers' copy of every encoded packet (copied into a fixed ring: no waiting, no allocation).
    private let liveTap: (any LivePacketTap)?
    private let logger: Logger

    private var encoder: H264Encoder?
    /// Capture time that encoder pts 0 stands for.
    private var originMs: Int64 = 0
    private var lastPts: Int64 = -1
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var writer: ChunkWriter?
    /// Shared by every chunk, so its buffer is reused from one to the next.
    private let timeStamper = PrecisionTimeStamper()
    /// Who signs the footage; nil records it unsigned.
    private let signing: SigningIdentitySource?
    /// Signs every chunk's GOPs; shared by them so the GOP counter and links run on across
    /// chunks. Made for the first chunk (the identity's files may have to wait for room).
    private var signer: MediaSigner?
    /// The chunk the capture side is filling.
    private var fillingChunk: ChunkPlan?
    /// Chunks whose first (IDR) packet has not come out of the encoder yet, in order.
    private var awaitedChunks: [ChunkPlan] = []
    /// Set when the store could not take more of the current chunk: the next frame starts a new one.
    private var cutRequested = false
    private var forcedKeyframes = ForcedKeyframes()
    /// Whether the store can take chunks; which frames are dropped and when to retry when it cannot.
    private let storeGate: StoreGate
    private var lastSnapshotMonotonicMs: Int64?
    /// Capture time of the newest frame sent to the encoder.
    private var lastEncodedCaptureMs: Int64?

    static let maximumRetryDelayMs: Int64 = 30_000

    init(
        captureSettings: CaptureSettings, store: ChunkStore, makeMasker: @escaping LiveMaskingFactory, control: RecorderControl,
        liveTap: (any LivePacketTap)? = nil, signing: SigningIdentitySource? = nil, logger: Logger
    ) {
        self.liveTap = liveTap
        self.signing = signing
        self.captureSettings = captureSettings
        self.store = store
        self.makeMasker = makeMasker
        self.control = control
        self.logger = logger
        storeGate = StoreGate(store: store, control: control, logger: logger)
        packet = av_packet_alloc()
        awaitedChunks.reserveCapacity(8)
    }

    deinit { av_packet_free(&packet) }

    /// Records until a stop is requested or a non-looping file ends. A failing source is
    /// retried with backoff for as long as the node runs; what was stored stays stored.
    func run() {
        var retryDelayMs: Int64 = 1000
        defer {
            endEncoderSession()
            control.updateStatus {
                $0.recording = false
                $0.finished = true
            }
        }
        while !control.isStopRequested {
            control.markProgress()
            let capture: LibavCapture
            let masker: any LiveFrameMasking
            do {
                capture = try LibavCapture(settings: captureSettings)
                captureDropsCounted = 0
                let format = capture.cameraFormatChoice.map { ", camera format \($0)" }
                    ?? captureSettings.cameraFormat.map { ", camera format \($0) (configured)" } ?? ""
                let device = capture.devicePath.map { " (\($0))" } ?? ""
                logger.notice("capturing from \(captureSettings.source)\(device) at \(capture.outputWidth)x\(capture.outputHeight)\(format)")
                control.updateStatus { $0.source = captureSettings.source.description }
                masker = try privacyPass(width: capture.outputWidth, height: capture.outputHeight)
            } catch {
                reportSourceFailure(error, retryDelayMs: retryDelayMs)
                waitBeforeRetry(&retryDelayMs)
                continue
            }
            do {
                var clockReported = !captureSettings.source.isLive
                while !control.isStopRequested, let frame = try capture.nextFrame() {
                    retryDelayMs = 1000
                    if !clockReported, let base = capture.driverTimestampBase {
                        reportCameraClock(base)
                        clockReported = true
                    }
                    record(frame, droppedByCapture: capture.droppedFrames, through: masker)
                }
                releaseHeldFrames(from: masker)
                if !control.isStopRequested {
                    logger.notice("end of \(captureSettings.source); recording stops")
                    return
                }
            } catch {
                releaseHeldFrames(from: masker)
                endEncoderSession()
                reportSourceFailure(error, retryDelayMs: retryDelayMs)
                waitBeforeRetry(&retryDelayMs)
            }
        }
    }

    /// The privacy pass for frames of this size: the current one, or a new one.
    /// - Throws: when it cannot be built (a cascade vanished): nothing is recorded then.
    private func privacyPass(width: Int, height: Int) throws -> any LiveFrameMasking {
        if let masker, maskerWidth == width, maskerHeight == height { return masker }
        masker = nil
        let made = try makeMasker(width, height)
        masker = made
        maskerWidth = width
        maskerHeight = height
        return made
    }

    private func reportCameraClock(_ base: DriverTimestampMapping.Base) {
        switch base {
        case .monotonic: logger.notice("camera timestamps: the driver's, on the monotonic clock, mapped to wall clock")
        case .wallClock: logger.notice("camera timestamps: the driver's, on the wall clock")
        case .unusable: logger.warning("camera timestamps are on neither clock; frames are stamped when the node reads them")
        }
    }

    private func reportSourceFailure(_ error: Error, retryDelayMs: Int64) {
        logger.error("source \(captureSettings.source) failed: \(error); retrying in \(retryDelayMs) ms")
        control.updateStatus {
            $0.recording = false
            $0.sourceError = "\(error)"
        }
    }

    private func waitBeforeRetry(_ delayMs: inout Int64) {
        let deadline = WallClock.monotonicMs() + delayMs
        while !control.isStopRequested && WallClock.monotonicMs() < deadline {
            control.markProgress()
            WallClock.sleep(ms: 50)
        }
        delayMs = min(delayMs * 2, Self.maximumRetryDelayMs)
    }

    private func record(_ frame: CapturedFrame, droppedByCapture: Int, through masker: any LiveFrameMasking) {
        let nowMonotonicMs = WallClock.monotonicMs()
        // Added, not set: the total also counts frames the store or the privacy pass dropped,
        // and a capture opened again after a failure counts from 0.
        let newDrops = droppedByCapture - captureDropsCounted
        captureDropsCounted = droppedByCapture
        control.updateStatus {
            $0.recording = !storeGate.isWaiting
            $0.sourceError = nil
            $0.framesCaptured += 1
            if newDrops > 0 {
                $0.framesDropped += newDrops
                $0.lastCaptureDropMonotonicMs = nowMonotonicMs
            }
            $0.lastFrameCaptureMs = frame.captureTimeMs
            $0.lastFrameMonotonicMs = nowMonotonicMs
        }
        // Privacy first: only frames the masker hands out are encoded; one it refuses is dropped.
        do {
            try masker.push(frame) { masked in encodeMasked(masked) }
        } catch {
            logger.error("privacy pass failed, frame dropped: \(error)")
            control.updateStatus { $0.framesDropped += 1 }
        }
    }

    /// Encodes the frames the privacy pass still holds (the capture session is ending).
    private func releaseHeldFrames(from masker: any LiveFrameMasking) {
        do {
            try masker.finish { masked in encodeMasked(masked) }
        } catch {
            logger.error("privacy pass failed on the last held frames, dropped: \(error)")
        }
    }

    private func encodeMasked(_ frame: MaskedFrame) {
        let nowMonotonicMs = WallClock.monotonicMs()
        if nowMonotonicMs - (lastSnapshotMonotonicMs ?? .min / 2) >= RecorderControl.snapshotIntervalMs {
            lastSnapshotMonotonicMs = nowMonotonicMs
            control.storeSnapshot(of: frame.picture, captureTimeMs: frame.captureTimeMs)
        }
        guard storeAdmits(frame, atMs: nowMonotonicMs) else { return }
        do {
            try encode(frame)
            control.updateStatus { $0.framesEncoded += 1 }
            control.markProgress()
        } catch {
            logger.error("encoding failed: \(error); starting a new encoder session")
            endEncoderSession()
        }
    }

    /// Whether the frame goes to the encoder: not while the store cannot take chunks.
    private func storeAdmits(_ frame: MaskedFrame, atMs nowMs: Int64) -> Bool {
        let chunkFrames = control.currentSettings.framesPerChunk
        switch storeGate.decide(atMs: nowMs, chunkFrames: chunkFrames, width: frame.picture.width, height: frame.picture.height) {
        case .record:
            return true
        case .retry:
            cutRequested = true
            return true
        case .drop:
            return false
        case .lost(let reason):
            if let current = writer {
                logger.error("\(reason): chunk \(current.plan.stamp) is left unfinished on it")
                writer = nil
                current.abandon()
            }
            storeRefused(nil, startingChunk: false)
            return false
        }
    }

    /// The store refused a chunk (`error` nil: no room for its first frame) or failed under
    /// one. Frames already in the encoder for chunks not started yet are dropped with their
    /// packets; a retry starts a chunk of its own.
    private func storeRefused(_ error: Error?, startingChunk: Bool) {
        awaitedChunks.removeAll(keepingCapacity: true)
        cutRequested = true
        storeGate.failed(atMs: WallClock.monotonicMs(), error: error, startingChunk: startingChunk)
    }

    private func encode(_ frame: MaskedFrame) throws {
        let settings = control.currentSettings
        var startsChunk = cutRequested || fillingChunk?.isOver(at: frame.captureTimeMs) ?? true
        if let ended = control.chunkToEndEarly(beforeFrameAt: frame.captureTimeMs, filling: fillingChunk) {
            logger.info("chunk \(ended) ends early: its footage was asked for")
            control.updateStatus { $0.chunksCutEarly += 1 }
            startsChunk = true
        }
        if let current = encoder,
            current.settings != settings.encoder || current.width != frame.picture.width || current.height != frame.picture.height
        {
            endEncoderSession()
            startsChunk = true
        }
        if encoder == nil {
            let opened = try H264Encoder(
                settings: settings.encoder, width: frame.picture.width, height: frame.picture.height,
                fps: settings.fps, logger: logger)
            logger.info("encoding with \(opened.codecName) (\(settings.encoder.preset), \(frame.picture.width)x\(frame.picture.height))")
            control.updateStatus {
                $0.encoderName = opened.codecName
                $0.frameWidth = opened.width
                $0.frameHeight = opened.height
            }
            encoder = opened
            if let liveTap, let context = opened.context {
                liveTap.beginSession(
                    width: opened.width, height: opened.height, fps: settings.fps,
                    extradata: UnsafeBufferPointer(start: context.pointee.extradata, count: Int(context.pointee.extradata_size)))
            }
            originMs = frame.captureTimeMs
            lastPts = -1
            startsChunk = true
        }
        let pts = max(frame.captureTimeMs - originMs, lastPts + 1)
        lastPts = pts
        lastEncodedCaptureMs = frame.captureTimeMs
        frame.avFrame.pointee.pts = pts
        let keyframe = forcedKeyframes.forces(captureMs: frame.captureTimeMs, startsChunk: startsChunk, control: control)
        frame.avFrame.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        if startsChunk {
            let plan = ChunkPlan(
                startMs: originMs + pts, encoderPts: pts, format: settings.videoFormat,
                durationMs: settings.chunkDurationMs,
                expectedFrames: settings.framesPerChunk)
            awaitedChunks.append(plan)
            fillingChunk = plan
            cutRequested = false
        }
        try encoder!.send(frame.avFrame)
        try routeEncodedPackets()
    }

    private func routeEncodedPackets() throws {
        guard let encoder, let packet else { return }
        while try encoder.receive(into: packet) {
            defer { av_packet_unref(packet) }
            packet.pointee.duration = Int64((1000 / control.currentSettings.fps).rounded())
            // The one place live viewers get packets: the recording's own, with the time stamp and
            // signing SEIs the chunk writer puts in, or as encoded when no chunk takes them.
            let captureMs = originMs + packet.pointee.pts
            var sentLive = false
            func publishLive(_ output: UnsafeMutablePointer<AVPacket>) {
                sentLive = true
                guard let liveTap, let data = output.pointee.data else { return }
                liveTap.publish(
                    UnsafeRawBufferPointer(start: data, count: Int(output.pointee.size)), captureMs: captureMs,
                    durationMs: output.pointee.duration, isKeyframe: output.pointee.flags & AV_PKT_FLAG_KEY != 0)
            }
            defer { if !sentLive { publishLive(packet) } }
            if let next = awaitedChunks.first, packet.pointee.pts == next.encoderPts, packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
                awaitedChunks.removeFirst()
                let finished = finishChunk()
                control.footagePublished(before: next.startMs, record: finished)
                do {
                    writer = try ChunkWriter(plan: next, store: store, encoder: encoder, timeStamper: timeStamper, signer: try currentSigner())
                } catch is ChunkWriter.NoRoom {
                    storeRefused(nil, startingChunk: true)
                } catch {
                    storeRefused(error, startingChunk: true)
                }
            }
            guard let current = writer else { continue }
            do {
                if try current.write(packet, originMs: originMs, live: publishLive) {
                    if current.frameCount == 1 { storeGate.chunkStarted(atMs: WallClock.monotonicMs()) }
                } else if current.frameCount == 0 {
                    finishChunk()
                    storeRefused(nil, startingChunk: true)
                } else {
                    logger.warning("store cap or disk space reached inside chunk \(current.plan.stamp); ending it early")
                    finishChunk()
                    cutRequested = true
                }
            } catch {
                writer = nil
                if store.availabilityProblem() != nil || (error as? LibavError)?.code == allspark_averror(EROFS) {
                    // Gone or read-only: recovery would write elsewhere or fail; finished once the disk is writable.
                    current.abandon()
                } else {
                    logger.error("writing chunk \(current.plan.stamp) failed: \(error); keeping what reached the disk")
                    if let record = current.salvage(logger: logger) { published(record) }
                }
                storeRefused(error, startingChunk: current.frameCount == 0)
            }
        }
    }

    /// The signer, made with the identity when there is none yet. - Throws: why the
    /// identity's files cannot be made (the chunk cannot start then).
    private func currentSigner() throws -> MediaSigner? {
        if let signer { return signer }
        guard let signing else { return nil }
        let made = MediaSigner(identity: try signing.current())
        signer = made
        return made
    }

    /// Publishes the chunk being written, if any, and returns its record.
    @discardableResult
    private func finishChunk() -> ChunkRecord? {
        guard let current = writer else { return nil }
        writer = nil
        do {
            if let record = try current.finish() {
                let finishMs = current.finishingDuration / .milliseconds(1)
                logger.info(
                    "chunk \(record.fileName): \(record.frameCount) frames, \(record.chunkBytes) bytes, finished in \(String(format: "%.2f", finishMs)) ms")
                published(record)
                return record
            }
        } catch {
            logger.error("finishing chunk \(current.plan.stamp) failed: \(error); keeping what reached the disk")
            if let record = current.salvage(logger: logger) {
                published(record)
                return record
            }
        }
        return nil
    }

    private func published(_ record: ChunkRecord) {
        storeGate.chunkPublished(record)
        control.announce(record)
    }

    /// Drains the encoder into the current chunk and finishes it.
    private func endEncoderSession() {
        if let encoder {
            do {
                try encoder.send(nil)
                try routeEncodedPackets()
            } catch {
                logger.error("draining the encoder failed: \(error)")
            }
        }
        let finished = finishChunk()
        if let lastEncodedCaptureMs { control.footagePublished(before: lastEncodedCaptureMs + 1, record: finished) }
        encoder = nil
        awaitedChunks.removeAll(keepingCapacity: true)
        fillingChunk = nil
        cutRequested = false
    }
}
