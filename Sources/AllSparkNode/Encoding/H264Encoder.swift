import CFFmpeg
import Logging

/// An open libavcodec H.264 encoder. Timestamps are in milliseconds (time base 1/1000) so a
/// packet's pts is exactly its frame's capture time minus the encoder's origin.
public final class H264Encoder {
    public let codecName: String
    public let settings: EncoderSettings
    public let width: Int
    public let height: Int
    private(set) var context: UnsafeMutablePointer<AVCodecContext>?
    static let timeBase = AVRational(num: 1, den: 1000)

    /// libx264 settings over the preset, for a camera that records for months on a small
    /// machine: no B-frames, a 2-frame lookahead (macroblock-tree rate control stays on) and
    /// sliced threads hold few frames, which halves peak memory at 1080p (352 → 189 MB) at the
    /// same speed and about the same size (a static street scene −17%, a talking face −0.5%,
    /// the test pattern +4%; bench/README.md). `force-cfr` rates each frame as one frame
    /// interval rather than waiting for the next frame's time: one frame less live latency, the
    /// same stream at a steady rate (timestamps pass through unchanged). An `x264-params` in
    /// `encoder.options` replaces it.
    static let cameraX264Params = "bframes=0:rc-lookahead=2:sliced-threads=1:force-cfr=1"

    /// Opens `settings.codec`, or libx264 when that cannot open (no such encoder, no hardware).
    public init(settings: EncoderSettings, width: Int, height: Int, fps: Double, logger: Logger) throws {
        self.settings = settings
        self.width = width
        self.height = height
        do {
            context = try Self.open(codec: settings.codec, settings: settings, width: width, height: height, fps: fps)
            codecName = settings.codec
        } catch {
            guard settings.codec != "libx264" else { throw error }
            logger.warning("encoder \(settings.codec) cannot open (\(error)); falling back to libx264 without encoder.options")
            var fallback = settings
            // The options were written for the named encoder.
            fallback.options = ""
            context = try Self.open(codec: "libx264", settings: fallback, width: width, height: height, fps: fps)
            codecName = "libx264"
        }
    }

    /// Opens and closes a small encoder with `settings`, so that options it rejects stop
    /// the node at start-up with the reason instead of failing every frame later.
    public static func checkOpens(_ settings: EncoderSettings, logger: Logger) throws {
        _ = try H264Encoder(settings: settings, width: 64, height: 64, fps: 30, logger: logger)
    }

    deinit { avcodec_free_context(&context) }

    private static func open(codec name: String, settings: EncoderSettings, width: Int, height: Int, fps: Double) throws
        -> UnsafeMutablePointer<AVCodecContext>
    {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw LibavError("finding encoder \(name)", code: allspark_averror(ENOENT))
        }
        var context: UnsafeMutablePointer<AVCodecContext>? = avcodec_alloc_context3(codec)
        guard let encoder = context else { throw LibavError("allocating encoder \(name)", code: allspark_averror(ENOMEM)) }
        do {
            encoder.pointee.width = Int32(width)
            encoder.pointee.height = Int32(height)
            encoder.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            encoder.pointee.time_base = timeBase
            encoder.pointee.framerate = av_d2q(fps, 1001 * 1000)
            encoder.pointee.gop_size = Int32(max(1, (fps * Double(settings.keyframeIntervalMs) / 1000).rounded()))
            // MP4 and MOV keep SPS/PPS in the sample description, not in the stream.
            encoder.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            var options: OpaquePointer?
            defer { av_dict_free(&options) }
            if settings.bitrateKbps > 0 {
                encoder.pointee.bit_rate = Int64(settings.bitrateKbps) * 1000
            } else if name == "libx264" {
                av_dict_set(&options, "crf", String(settings.crf), 0)
            }
            if name == "libx264" {
                av_dict_set(&options, "preset", settings.preset, 0)
                av_dict_set(&options, "x264-params", cameraX264Params, 0)
                // A forced keyframe at a chunk start must be an IDR so the chunk plays on its own.
                av_dict_set(&options, "forced-idr", "1", 0)
            }
            if !settings.options.isEmpty {
                try checkLibav(
                    av_dict_parse_string(&options, settings.options, "=", ",", 0), "reading encoder.options \"\(settings.options)\"")
            }
            try checkLibav(avcodec_open2(encoder, codec, &options), "opening encoder \(name)")
            // avcodec_open2 leaves behind the options the encoder does not know.
            if let unknown = av_dict_get(options, "", nil, AV_DICT_IGNORE_SUFFIX) {
                throw LibavError(
                    "encoder \(name) has no option \"\(String(cString: unknown.pointee.key))\" (encoder.options)",
                    code: allspark_averror(EINVAL))
            }
            return encoder
        } catch {
            avcodec_free_context(&context)
            throw error
        }
    }

    /// Sends one frame; nil starts draining (after which the encoder cannot take frames).
    func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        try checkLibav(avcodec_send_frame(context, frame), "encoding a frame with \(codecName)")
    }

    /// Fills `packet` with the next encoded packet; false when the encoder needs more input
    /// or is fully drained.
    func receive(into packet: UnsafeMutablePointer<AVPacket>) throws -> Bool {
        let result = avcodec_receive_packet(context, packet)
        if result == allspark_averror_eagain() || result == allspark_averror_eof() { return false }
        try checkLibav(result, "receiving a packet from \(codecName)")
        return true
    }
}
