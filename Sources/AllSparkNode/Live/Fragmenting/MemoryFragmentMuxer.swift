import CFFmpeg
import NIOCore

/// libavformat's MP4 muxer writing fragmented MP4 into memory through a custom AVIOContext:
/// `init` yields the initialisation segment (ftyp + moov), each `fragment(of:)` one
/// prft + moof + mdat holding exactly one frame (`frag_custom`, flushed after every packet), so a
/// frame leaves the muxer the moment it is written. One muxer per encoder session.
///
/// libavformat remembers every fragment it wrote (48 bytes each, for an index it writes
/// only at the end of a file), which a live stream never reaches: 5 MB an hour at 30 fps.
/// So after `fragmentsPerContext` fragments the muxer opens a fresh context at the next
/// keyframe and carries on from there (`frag_discont`: its first fragment's decode time
/// is that frame's), with the same initialisation segment; viewers see one stream.
final class MemoryFragmentMuxer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var ioContext: UnsafeMutablePointer<AVIOContext>?
    private let sink: ByteSink
    private var streamTimeBase = H264Encoder.timeBase
    private let packet: UnsafeMutablePointer<AVPacket>
    private let parameters: LiveStreamParameters
    private let fragmentsPerContext: Int
    private var fragmentsInContext = 0
    private(set) var initializationSegment = ByteBuffer()
    /// Contexts opened so far (1 + renewals).
    private(set) var contextsOpened = 0

    /// Collects what the muxer writes between two `take()` calls, in one buffer reused for
    /// every frame. (Handing the array itself out shared its storage, so emptying it had to
    /// allocate a new one: a 256 KiB allocation per frame.)
    final class ByteSink {
        var bytes: [UInt8] = []
        func take() -> ByteBuffer {
            let taken = ByteBuffer(bytes: bytes)
            bytes.removeAll(keepingCapacity: true)
            return taken
        }
    }

    /// - Parameter fragmentsPerContext: fragments after which the next keyframe starts a
    ///   fresh libavformat context (about 5 minutes at 30 fps: 430 KB of fragment records).
    init(parameters: LiveStreamParameters, fragmentsPerContext: Int = 9_000) throws {
        self.parameters = parameters
        self.fragmentsPerContext = fragmentsPerContext
        sink = ByteSink()
        sink.bytes.reserveCapacity(256 << 10)
        guard let allocatedPacket = av_packet_alloc() else { throw LibavError("allocating a packet", code: allspark_averror(ENOMEM)) }
        packet = allocatedPacket
        // Every property is set: should this throw, deinit frees the packet.
        initializationSegment = try openContext(continuing: false)
    }

    /// Opens a context, writes its header and returns what it wrote (the initialisation
    /// segment). `continuing`: the first fragment keeps its packet's decode time.
    private func openContext(continuing: Bool) throws -> ByteBuffer {
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        do {
            try checkLibav(avformat_alloc_output_context2(&allocated, nil, "mp4", nil), "creating the live mp4 muxer")
            context = allocated
            guard let context, let stream = avformat_new_stream(context, nil) else {
                throw LibavError("adding the live video stream", code: allspark_averror(ENOMEM))
            }
            let codecParameters = stream.pointee.codecpar!
            codecParameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            codecParameters.pointee.codec_id = AV_CODEC_ID_H264
            codecParameters.pointee.width = Int32(parameters.width)
            codecParameters.pointee.height = Int32(parameters.height)
            codecParameters.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard let extradata = av_mallocz(parameters.extradata.count + padding)?.assumingMemoryBound(to: UInt8.self) else {
                throw LibavError("allocating extradata", code: allspark_averror(ENOMEM))
            }
            extradata.update(from: parameters.extradata, count: parameters.extradata.count)
            codecParameters.pointee.extradata = extradata
            codecParameters.pointee.extradata_size = Int32(parameters.extradata.count)
            stream.pointee.time_base = H264Encoder.timeBase
            stream.pointee.avg_frame_rate = av_d2q(parameters.fps, 1001 * 1000)

            let bufferSize: Int32 = 64 << 10
            guard let ioBuffer = av_malloc(Int(bufferSize)) else { throw LibavError("allocating the live AVIO buffer", code: allspark_averror(ENOMEM)) }
            ioContext = avio_alloc_context(
                ioBuffer.assumingMemoryBound(to: UInt8.self), bufferSize, 1, Unmanaged.passUnretained(sink).toOpaque(), nil,
                { opaque, buffer, size in
                    guard let opaque, let buffer, size > 0 else { return size }
                    let sink = Unmanaged<ByteSink>.fromOpaque(opaque).takeUnretainedValue()
                    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: buffer, count: Int(size)))
                    return size
                }, nil)
            guard ioContext != nil else {
                av_free(ioBuffer)
                throw LibavError("allocating the live AVIO context", code: allspark_averror(ENOMEM))
            }
            context.pointee.pb = ioContext
            context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            var options: OpaquePointer?
            defer { av_dict_free(&options) }
            // frag_custom: a fragment ends where we flush it, after every frame.
            let flags = "frag_custom+empty_moov+default_base_moof+omit_tfhd_offset" + (continuing ? "+frag_discont" : "")
            av_dict_set(&options, "movflags", flags, 0)
            // Timestamps as given: fragmented MP4 would otherwise shift a context's first
            // decode time to 0, and a renewed context would start the stream over.
            av_dict_set(&options, "avoid_negative_ts", "disabled", 0)
            av_dict_set(&options, "use_editlist", "0", 0)
            // A prft box before each moof with the frame's capture time (AV_PKT_DATA_PRFT), for
            // players that show the latency (dash.js, Shaka, GPAC).
            av_dict_set(&options, "write_prft", "wallclock", 0)
            try checkLibav(avformat_write_header(context, &options), "writing the live init segment")
            avio_flush(ioContext)
            streamTimeBase = stream.pointee.time_base
            contextsOpened += 1
            fragmentsInContext = 0
            return sink.take()
        } catch {
            Self.release(context: &context, ioContext: &ioContext)
            throw error
        }
    }

    /// Replaces the context with a fresh one that continues the stream.
    private func renewContext() throws {
        Self.release(context: &context, ioContext: &ioContext)
        let header = try openContext(continuing: true)
        guard header == initializationSegment else {
            Self.release(context: &context, ioContext: &ioContext)
            throw LibavError("a renewed live muxer wrote another initialisation segment", code: allspark_averror(EINVAL))
        }
    }

    deinit {
        Self.release(context: &context, ioContext: &ioContext)
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&owned)
    }

    private static func release(context: inout UnsafeMutablePointer<AVFormatContext>?, ioContext: inout UnsafeMutablePointer<AVIOContext>?) {
        if let context {
            context.pointee.pb = nil
            avformat_free_context(context)
        }
        context = nil
        if ioContext != nil {
            av_freep(&ioContext!.pointee.buffer)
            avio_context_free(&ioContext)
        }
    }

    /// One prft + moof + mdat for one access unit. `ptsMs` counts from the session's first
    /// frame; `captureMs` is its wall-clock capture time, which the prft carries.
    func fragment(of accessUnit: UnsafeBufferPointer<UInt8>, ptsMs: Int64, durationMs: Int64, isKeyframe: Bool, captureMs: Int64) throws
        -> ByteBuffer
    {
        if isKeyframe && fragmentsInContext >= fragmentsPerContext { try renewContext() }
        guard let context else { throw LibavError("the live muxer is closed", code: allspark_averror(EINVAL)) }
        try checkLibav(av_new_packet(packet, Int32(accessUnit.count)), "allocating a live packet")
        defer { av_packet_unref(packet) }
        packet.pointee.data.update(from: accessUnit.baseAddress!, count: accessUnit.count)
        packet.pointee.pts = ptsMs
        packet.pointee.dts = ptsMs
        packet.pointee.duration = durationMs
        packet.pointee.stream_index = 0
        if isKeyframe { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        // libavformat takes side data only in its own allocation: one small one per frame.
        guard let producerTime = av_packet_new_side_data(packet, AV_PKT_DATA_PRFT, MemoryLayout<AVProducerReferenceTime>.size) else {
            throw LibavError("adding a live frame's capture time", code: allspark_averror(ENOMEM))
        }
        UnsafeMutableRawPointer(producerTime).storeBytes(
            of: AVProducerReferenceTime(wallclock: captureMs * 1000, flags: 0), as: AVProducerReferenceTime.self)
        av_packet_rescale_ts(packet, H264Encoder.timeBase, streamTimeBase)
        try checkLibav(av_write_frame(context, packet), "muxing a live frame")
        // A null packet ends the fragment under frag_custom.
        try checkLibav(av_write_frame(context, nil), "ending a live fragment")
        avio_flush(ioContext)
        fragmentsInContext += 1
        return sink.take()
    }
}
