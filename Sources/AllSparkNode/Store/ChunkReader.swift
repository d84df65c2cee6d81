import CFFmpeg

/// Reads a chunk file's video packets in file order with libavformat. Stops quietly at a
/// torn tail (the end of what a killed writer left), which is the point of reading it.
final class ChunkReader {
    let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private(set) var streamIndex: Int32 = -1
    private(set) var timeBase = AVRational(num: 1, den: 1000)

    init(path: String) throws {
        self.path = path
        var opened: UnsafeMutablePointer<AVFormatContext>?
        try checkLibav(avformat_open_input(&opened, path, nil, nil), "opening \(path)")
        context = opened
        do {
            try checkLibav(avformat_find_stream_info(opened, nil), "reading stream info of \(path)")
            streamIndex = try checkLibav(av_find_best_stream(opened, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0), "finding video in \(path)")
            timeBase = opened!.pointee.streams[Int(streamIndex)]!.pointee.time_base
            packet = av_packet_alloc()
            guard packet != nil else { throw LibavError("allocating a packet", code: allspark_averror(ENOMEM)) }
        } catch {
            avformat_close_input(&context)
            throw error
        }
    }

    deinit {
        av_packet_free(&packet)
        avformat_close_input(&context)
    }

    /// The container's duration in ms, when it states one.
    var durationMs: Int64? {
        guard let duration = context?.pointee.duration, duration != allspark_nopts_value() else { return nil }
        return av_rescale_q(duration, allspark_time_base_q(), AVRational(num: 1, den: 1000))
    }

    /// The stream's nominal frame rate as libav reads it (the SPS's timing, else guessed from
    /// the packets' times); 0/0 when unknown.
    var frameRate: AVRational {
        context!.pointee.streams[Int(streamIndex)]!.pointee.r_frame_rate
    }

    var codecParameters: UnsafeMutablePointer<AVCodecParameters> {
        context!.pointee.streams[Int(streamIndex)]!.pointee.codecpar
    }

    /// Calls `body` with each intact video packet; returns how many there were.
    @discardableResult
    func forEachPacket(_ body: (UnsafeMutablePointer<AVPacket>) throws -> Void) rethrows -> Int {
        var count = 0
        while let packet = nextPacket() {
            defer { av_packet_unref(packet) }
            count += 1
            try body(packet)
        }
        return count
    }

    /// The next intact video packet, nil at the end (or a torn tail). It is the reader's own:
    /// the caller unreferences it (or hands it on) before asking for the next.
    func nextPacket() -> UnsafeMutablePointer<AVPacket>? {
        guard let context, let packet else { return nil }
        while av_read_frame(context, packet) >= 0 {
            if packet.pointee.stream_index == streamIndex, packet.pointee.flags & AV_PKT_FLAG_CORRUPT == 0 { return packet }
            av_packet_unref(packet)
        }
        return nil
    }

    /// Presentation times of all intact frames in ms, ascending, relative to the first frame;
    /// nil when they span more than Int64 holds, which only damage makes.
    func frameTimesMs() -> [Int64]? {
        var times: [Int64] = []
        forEachPacket { packet in
            let pts = packet.pointee.pts != allspark_nopts_value() ? packet.pointee.pts : packet.pointee.dts
            times.append(av_rescale_q(pts, timeBase, AVRational(num: 1, den: 1000)))
        }
        times.sort()
        guard let first = times.first, let last = times.last else { return [] }
        guard !last.subtractingReportingOverflow(first).overflow else { return nil }
        return times.map { $0 - first }
    }
}
