import CFFmpeg
import Foundation

/// One frame ready for privacy masking and encoding. The picture is lent and read-only:
/// it may be the decoder's own reference picture, and stays valid until the next call to
/// `LibavCapture.nextFrame()`. A privacy pass copies it before painting (or asks the
/// capture for writable pictures).
public struct CapturedFrame {
    public let picture: YUV420Frame
    public let captureTimeMs: Int64
    /// The same picture as an AVFrame, for the encoder.
    let avFrame: UnsafeMutablePointer<AVFrame>
}

/// Opens a camera, file or test pattern with libavformat, decodes it and converts every
/// frame to yuv420p at the configured size into one reused buffer. A decoded frame that
/// is already yuv420p at that size is lent as it is, without a copy.
public final class LibavCapture {
    public let source: CaptureSource
    public private(set) var outputWidth = 0
    public private(set) var outputHeight = 0
    private let settings: CaptureSettings
    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var streamIndex: Int32 = -1
    private var streamTimeBase = AVRational(num: 1, den: 1)
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var decoded: UnsafeMutablePointer<AVFrame>?
    /// The scaler's target, allocated at the first frame that needs converting.
    private var converted: UnsafeMutablePointer<AVFrame>?
    /// A reference to the decoded picture when it needs no conversion.
    private var lent: UnsafeMutablePointer<AVFrame>?
    private var scaler: OpaquePointer?
    private var clock: FrameClock
    private var driverTimestamps = DriverTimestampMapping()
    private var firstPts: Int64?
    private var loopOffsetMs: Int64 = 0
    private var lastMediaMs: Int64 = 0
    private var framesSinceOpen: Int64 = 0
    /// Frames the pacing dropped because the pipeline fell behind real time.
    public private(set) var droppedFrames = 0
    /// The input format `cameraFormat: auto` chose for a camera, if it chose one.
    private(set) var cameraFormatChoice: CameraFormatChoice?
    /// The device opened, for a camera (a named camera's current /dev/videoN).
    private(set) var devicePath: String?
    /// Which clock a camera's driver stamps frames with, once its first frame is read.
    var driverTimestampBase: DriverTimestampMapping.Base? { driverTimestamps.base }

    private static let registerDevices: Void = avdevice_register_all()

    /// Whether frames are always copied into the capture's own buffer, for a caller
    /// that paints into them in place.
    private let writablePictures: Bool

    /// - Parameter writablePictures: copy every frame into a buffer the caller may paint
    ///   into, instead of lending the decoder's picture when it needs no conversion.
    public init(settings: CaptureSettings, writablePictures: Bool = false) throws {
        _ = Self.registerDevices
        self.settings = settings
        self.writablePictures = writablePictures
        self.source = settings.source
        clock = FrameClock(live: settings.source.isLive, paced: settings.pace)

        var context: UnsafeMutablePointer<AVFormatContext>?
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        let url: String
        var inputFormat: UnsafePointer<AVInputFormat>?
        switch settings.source {
        case .camera(let path):
            url = path
            devicePath = path
            inputFormat = av_find_input_format("v4l2")
            cameraFormatChoice = try Self.setCameraOptions(&options, devicePath: path, settings: settings)
        case .namedCamera(let name):
            guard let camera = V4L2Catalog.camera(named: name) else {
                let present = V4L2Catalog.cameras().map { "\($0.devicePath) (\($0.name), \($0.busInfo))" }
                let known = present.isEmpty ? "no capture device is present" : "present: " + present.joined(separator: ", ")
                throw LibavError("no V4L2 camera named \(name) (card name or bus info); \(known)", code: allspark_averror(ENODEV))
            }
            url = camera.devicePath
            devicePath = camera.devicePath
            inputFormat = av_find_input_format("v4l2")
            cameraFormatChoice = try Self.setCameraOptions(&options, devicePath: camera.devicePath, settings: settings)
        case .file(let path):
            url = path
        case .testPattern:
            let width = settings.width > 0 ? settings.width : 1280
            let height = settings.height > 0 ? settings.height : 720
            url = "testsrc2=size=\(width)x\(height):rate=\(settings.fps)"
            inputFormat = av_find_input_format("lavfi")
        }
        let opened = avformat_open_input(&context, url, inputFormat, &options)
        if opened < 0, let devicePath { LeakedBufferMappings.release(devicePath: devicePath) }
        try checkLibav(opened, "opening \(settings.source)")
        formatContext = context

        do {
            try checkLibav(avformat_find_stream_info(context, nil), "reading stream info of \(settings.source)")
            var codec: UnsafePointer<AVCodec>?
            let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)
            try checkLibav(index, "finding a video stream in \(settings.source)")
            streamIndex = index
            let stream = context!.pointee.streams[Int(index)]!
            streamTimeBase = stream.pointee.time_base

            decoder = avcodec_alloc_context3(codec)
            guard let decoder else { throw LibavError("allocating a decoder", code: allspark_averror(ENOMEM)) }
            try checkLibav(avcodec_parameters_to_context(decoder, stream.pointee.codecpar), "configuring the decoder")
            // Threads as the decoder finds useful; for a source read at real time (a camera, a
            // paced file) only slice threads: frame threads each hold frames of their own in
            // flight (19 MB at 1080p H.264, at the same CPU time; bench/README.md) and add a
            // frame of latency per thread. An unpaced file keeps them for throughput.
            decoder.pointee.thread_count = 0
            if settings.source.isLive || settings.pace { decoder.pointee.thread_type = FF_THREAD_SLICE }
            try checkLibav(avcodec_open2(decoder, codec, nil), "opening the decoder")

            outputWidth = settings.width > 0 ? settings.width : Int(decoder.pointee.width)
            outputHeight = settings.height > 0 ? settings.height : Int(decoder.pointee.height)
            guard outputWidth >= 16, outputHeight >= 16 else {
                throw LibavError("source \(settings.source) has no usable picture size", code: allspark_averror(EINVAL))
            }
            packet = av_packet_alloc()
            decoded = av_frame_alloc()
            lent = av_frame_alloc()
            guard packet != nil, decoded != nil, lent != nil else {
                throw LibavError("allocating capture buffers", code: allspark_averror(ENOMEM))
            }
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    /// Frees everything; safe to call twice (each free sets its pointer to nil).
    private func release() {
        sws_freeContext(scaler)
        scaler = nil
        av_frame_free(&converted)
        av_frame_free(&lent)
        av_frame_free(&decoded)
        av_packet_free(&packet)
        avcodec_free_context(&decoder)
        avformat_close_input(&formatContext)
    }

    /// The next frame, or nil when a non-looping file has ended. Throws when the source fails
    /// (a camera unplugged, a file that became unreadable).
    public func nextFrame() throws -> CapturedFrame? {
        guard let decoder, let packet, let decoded else { return nil }
        while true {
            let received = avcodec_receive_frame(decoder, decoded)
            if received == 0 {
                defer { av_frame_unref(decoded) }
                if let frame = try deliver(decoded) { return frame }
                continue
            }
            if received == allspark_averror_eof() {
                guard settings.loop, !source.isLive else { return nil }
                try rewind()
                continue
            }
            guard received == allspark_averror_eagain() else {
                throw LibavError("decoding \(source)", code: received)
            }

            let read = av_read_frame(formatContext, packet)
            if read == allspark_averror_eof() {
                guard !source.isLive else { throw LibavError("reading \(source)", code: read) }
                try checkLibav(avcodec_send_packet(decoder, nil), "draining the decoder")
                continue
            }
            try checkLibav(read, "reading \(source)")
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(decoder, packet)
            // A corrupt packet costs one frame, not the source.
            if sent < 0 && sent != allspark_averror(EINVAL) && sent != allspark_averror_invaliddata() {
                throw LibavError("decoding \(source)", code: sent)
            }
        }
    }

    /// Starts a looping file again; media time continues one frame after the last one.
    private func rewind() throws {
        try checkLibav(avformat_seek_file(formatContext, -1, Int64.min, 0, 0, 0), "rewinding \(source)")
        avcodec_flush_buffers(decoder)
        loopOffsetMs = lastMediaMs + settings.frameIntervalMs
        firstPts = nil
    }

    private func deliver(_ frame: UnsafeMutablePointer<AVFrame>) throws -> CapturedFrame? {
        let pts = frame.pointee.best_effort_timestamp
        let mediaMs: Int64
        if pts != allspark_nopts_value() {
            let first = firstPts ?? pts
            firstPts = first
            mediaMs = loopOffsetMs + av_rescale_q(pts - first, streamTimeBase, AVRational(num: 1, den: 1000))
        } else {
            mediaMs = lastMediaMs + (framesSinceOpen == 0 ? 0 : settings.frameIntervalMs)
        }
        lastMediaMs = mediaMs
        framesSinceOpen += 1
        var deviceWallMs: Int64?
        if source.isLive && pts != allspark_nopts_value() {
            let driverUs = av_rescale_q(pts, streamTimeBase, AVRational(num: 1, den: 1_000_000))
            deviceWallMs = driverTimestamps.wallMs(driverUs: driverUs, reading: .take())
        }

        switch clock.place(mediaMs: mediaMs, deviceWallMs: deviceWallMs, nowWallMs: WallClock.nowMs(), nowMonotonicMs: WallClock.monotonicMs()) {
        case .drop:
            droppedFrames += 1
            return nil
        case .deliver(let captureTimeMs, let waitMs):
            let picture = try needsConversion(frame) ? convert(frame) : lend(frame)
            WallClock.sleep(ms: waitMs)
            return CapturedFrame(picture: Self.yuv420Picture(of: picture), captureTimeMs: captureTimeMs, avFrame: picture)
        }
    }

    private func needsConversion(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        writablePictures || frame.pointee.format != AV_PIX_FMT_YUV420P.rawValue
            || Int(frame.pointee.width) != outputWidth || Int(frame.pointee.height) != outputHeight
    }

    /// The decoded picture itself, by reference (the decoder keeps its own reference).
    private func lend(_ frame: UnsafeMutablePointer<AVFrame>) throws -> UnsafeMutablePointer<AVFrame> {
        guard let lent else { throw LibavError("capture is closed", code: allspark_averror(EINVAL)) }
        av_frame_unref(lent)
        try checkLibav(av_frame_ref(lent, frame), "referencing a decoded picture")
        return lent
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> UnsafeMutablePointer<AVFrame> {
        let output = try conversionTarget()
        scaler = sws_getCachedContext(
            scaler, frame.pointee.width, frame.pointee.height, AVPixelFormat(frame.pointee.format),
            Int32(outputWidth), Int32(outputHeight), AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
        guard let scaler else {
            throw LibavError("converting \(frame.pointee.width)x\(frame.pointee.height) frames", code: allspark_averror(EINVAL))
        }
        // The encoder may still hold the previous picture; this copies only in that case.
        try checkLibav(av_frame_make_writable(output), "making the output picture writable")
        let scaled = withUnsafePointer(to: &frame.pointee.data) { sourceData in
            withUnsafePointer(to: &frame.pointee.linesize) { sourceStrides in
                withUnsafePointer(to: &output.pointee.data) { targetData in
                    withUnsafePointer(to: &output.pointee.linesize) { targetStrides in
                        sws_scale(
                            scaler,
                            UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                            UnsafeRawPointer(sourceStrides).assumingMemoryBound(to: Int32.self),
                            0, frame.pointee.height,
                            UnsafeRawPointer(targetData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                            UnsafeRawPointer(targetStrides).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        try checkLibav(scaled, "scaling a frame")
        return output
    }

    private func conversionTarget() throws -> UnsafeMutablePointer<AVFrame> {
        if let converted { return converted }
        guard let frame = av_frame_alloc() else { throw LibavError("allocating the output picture", code: allspark_averror(ENOMEM)) }
        converted = frame
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(outputWidth)
        frame.pointee.height = Int32(outputHeight)
        try checkLibav(av_frame_get_buffer(frame, 0), "allocating the output picture")
        return frame
    }

    private static func yuv420Picture(of avFrame: UnsafeMutablePointer<AVFrame>) -> YUV420Frame {
        let frame = avFrame.pointee
        return YUV420Frame(
            width: Int(frame.width), height: Int(frame.height),
            y: frame.data.0!, yStride: Int(frame.linesize.0),
            u: frame.data.1!, uStride: Int(frame.linesize.1),
            v: frame.data.2!, vStride: Int(frame.linesize.2))
    }
}

extension LibavCapture {
    /// libavdevice's v4l2 options: the size and rate asked for, the input format (the one
    /// configured, or the one `CameraFormatChoice` picks from what the camera offers at that
    /// size), and the driver's timestamps as it gives them.
    /// - Throws: when the camera lists its sizes and none of its formats offers the one asked
    ///   for (the driver would silently give another); the message names what it offers.
    fileprivate static func setCameraOptions(
        _ options: inout OpaquePointer?, devicePath: String, settings: CaptureSettings
    ) throws -> CameraFormatChoice? {
        var choice: CameraFormatChoice?
        if settings.width > 0 && settings.height > 0 {
            av_dict_set(&options, "video_size", "\(settings.width)x\(settings.height)", 0)
            let offers = V4L2Catalog.offers(at: devicePath, width: settings.width, height: settings.height)
            if offers.isEmpty, let camera = V4L2Catalog.camera(at: devicePath), !camera.formats.isEmpty {
                throw LibavError(
                    "camera \(devicePath) (\(camera.name)) cannot give \(settings.width)x\(settings.height); it offers "
                        + Self.sizesOffered(by: camera), code: allspark_averror(EINVAL))
            }
            if settings.cameraFormat == nil { choice = CameraFormatChoice.choose(from: offers, fps: settings.fps) }
        }
        av_dict_set(&options, "framerate", String(settings.fps), 0)
        if let format = settings.cameraFormat {
            av_dict_set(&options, "input_format", format, 0)
        } else if let choice {
            av_dict_set(&options, "input_format", choice.inputFormat, 0)
        }
        // The driver's own timestamps, unmapped: DriverTimestampMapping maps them to wall clock.
        av_dict_set(&options, "timestamps", "default", 0)
        return choice
    }

    /// "320x180, 640x360 (YUYV, NV12); 32x32-1920x1080 (GREY)": each size list with the formats offering it.
    static func sizesOffered(by camera: V4L2Catalog.Camera) -> String {
        var formatsBySizes: [(sizes: String, formats: [String])] = []
        for format in camera.formats {
            let sizes = format.sizes.map { offer -> String in
                let range = offer.range
                return range.isDiscrete
                    ? "\(range.maxWidth)x\(range.maxHeight)"
                    : "\(range.minWidth)x\(range.minHeight)-\(range.maxWidth)x\(range.maxHeight)"
            }.joined(separator: ", ")
            if let index = formatsBySizes.firstIndex(where: { $0.sizes == sizes }) {
                formatsBySizes[index].formats.append(format.fourcc)
            } else {
                formatsBySizes.append((sizes, [format.fourcc]))
            }
        }
        return formatsBySizes.map { "\($0.sizes) (\($0.formats.joined(separator: ", ")))" }.joined(separator: "; ")
    }
}
