import CFFmpeg
import Logging

/// Masks every frame of a video file and encodes the result as H.264 in MP4 or MOV.
///
/// Frames are read at the file's own size, as fast as they decode (no pacing, no drops);
/// timestamps follow the file's. Odd sizes are padded by one repeated column or row
/// (`EvenSizePadder`).
final class VideoAnonymizer {
    private let masker: FaceMasker
    private let logger: Logger

    init(masker: FaceMasker, logger: Logger) {
        self.masker = masker
        self.logger = logger
    }

    /// - Returns: the number of frames written.
    func anonymize(
        _ inputPath: String, into outputPath: String, as format: VideoFormat, boxes: BoxesLog?,
        progress: (AnonymizeProgress) -> Void
    ) throws -> Int {
        let capture = try LibavCapture(settings: CaptureSettings(
            source: .file(path: inputPath), width: 0, height: 0, fps: 30, loop: false, pace: false),
            writablePictures: true)
        let padder = try EvenSizePadder(width: capture.outputWidth, height: capture.outputHeight)
        var output: VideoOutput?
        var frames = 0
        var firstCaptureMs: Int64 = 0
        var lastPts: Int64 = -1
        while let frame = try capture.nextFrame() {
            masker.mask(frame.picture, captureTimeMs: frame.captureTimeMs)
            let masked = masker.lastMaskedBoxes
            try boxes?.append(source: .frame(frames), boxes: masked)
            if output == nil {
                output = try VideoOutput(
                    path: outputPath, format: format,
                    width: padder?.padded.width ?? capture.outputWidth, height: padder?.padded.height ?? capture.outputHeight,
                    logger: logger)
                firstCaptureMs = frame.captureTimeMs
            }
            let encoded = try padder?.pad(frame.picture) ?? frame.avFrame
            let pts = max(frame.captureTimeMs - firstCaptureMs, lastPts + 1)
            lastPts = pts
            try output!.encode(encoded, pts: pts)
            frames += 1
            progress(AnonymizeProgress(done: frames, total: nil, item: String(frames - 1), boxesMasked: masked.count, skipReason: nil))
        }
        guard let output else { throw AnonymizeError.noFrames(path: inputPath) }
        try output.finish()
        return frames
    }
}

/// An H.264 encoder feeding one MP4 or MOV file (fragmented, as the recorder's chunks).
private final class VideoOutput {
    private let encoder: H264Encoder
    private let muxer: FragmentedMuxer
    private let packet: UnsafeMutablePointer<AVPacket>
    private var previousPts: Int64 = 0
    private var frameIntervalMs: Int64 = 33

    init(path: String, format: VideoFormat, width: Int, height: Int, logger: Logger) throws {
        encoder = try H264Encoder(settings: EncoderSettings(), width: width, height: height, fps: 30, logger: logger)
        guard let context = encoder.context else { throw LibavError("opening the encoder", code: allspark_averror(EINVAL)) }
        muxer = try FragmentedMuxer(path: path, format: format, encoder: context)
        guard let packet = av_packet_alloc() else { throw LibavError("allocating a packet", code: allspark_averror(ENOMEM)) }
        self.packet = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
    }

    func encode(_ frame: UnsafeMutablePointer<AVFrame>, pts: Int64) throws {
        if pts > previousPts { frameIntervalMs = pts - previousPts }
        previousPts = pts
        frame.pointee.pts = pts
        frame.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try encoder.send(frame)
        try writePackets()
    }

    /// Drains the encoder and closes the file.
    func finish() throws {
        try encoder.send(nil)
        try writePackets()
        try muxer.finish()
    }

    private func writePackets() throws {
        while try encoder.receive(into: packet) {
            defer { av_packet_unref(packet) }
            packet.pointee.duration = frameIntervalMs
            try muxer.write(packet)
        }
    }
}
