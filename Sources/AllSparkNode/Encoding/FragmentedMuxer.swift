import CFFmpeg
import Foundation

/// Writes one H.264 stream to a fragmented MP4 or MOV file. Each keyframe starts a new
/// fragment, and so does every `maximumFragmentMicroseconds` between keyframes; every
/// packet is flushed to the file at once, so a killed process leaves a file that is
/// readable up to its last complete fragment. (`Layout.progressive` writes a
/// plain file with its index first instead, for downloads that are written in one go.)
final class FragmentedMuxer {
    enum Layout {
        case fragmented
        case progressive

        var movflags: String {
            switch self {
            case .fragmented: "frag_keyframe+empty_moov+default_base_moof"
            case .progressive: "+faststart"
            }
        }
    }

    /// A fragment is synced to disk when the next one begins (`ChunkWriter`), so a power cut
    /// loses about this much of the chunk being written, however long the keyframe interval.
    static let maximumFragmentMicroseconds = 250_000

    let path: String
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var streamTimeBase = AVRational(num: 1, den: 1000)
    /// A second descriptor on the same file, for fdatasync (libavformat does not expose its own).
    private var syncDescriptor: Int32 = -1
    private var closed = false

    convenience init(path: String, format: VideoFormat, encoder: UnsafeMutablePointer<AVCodecContext>) throws {
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = avcodec_parameters_alloc()
        defer { avcodec_parameters_free(&parameters) }
        guard let parameters else { throw LibavError("allocating codec parameters", code: allspark_averror(ENOMEM)) }
        try checkLibav(avcodec_parameters_from_context(parameters, encoder), "copying encoder parameters")
        try self.init(path: path, format: format, codecParameters: parameters)
    }

    init(path: String, format: VideoFormat, codecParameters: UnsafePointer<AVCodecParameters>, layout: Layout = .fragmented) throws {
        self.path = path
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        try checkLibav(avformat_alloc_output_context2(&allocated, nil, format.rawValue, path), "creating a \(format.rawValue) muxer")
        context = allocated
        do {
            guard let context, let stream = avformat_new_stream(context, nil) else {
                throw LibavError("adding a video stream", code: allspark_averror(ENOMEM))
            }
            try checkLibav(avcodec_parameters_copy(stream.pointee.codecpar, codecParameters), "copying codec parameters")
            stream.pointee.codecpar.pointee.codec_tag = 0
            stream.pointee.time_base = H264Encoder.timeBase
            try checkLibav(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "creating \(path)")
            syncDescriptor = open(path, O_RDONLY | O_CLOEXEC)
            context.pointee.flush_packets = 1
            var options: OpaquePointer?
            defer { av_dict_free(&options) }
            av_dict_set(&options, "movflags", layout.movflags, 0)
            if layout == .fragmented {
                av_dict_set(&options, "frag_duration", String(Self.maximumFragmentMicroseconds), 0)
            }
            try checkLibav(avformat_write_header(context, &options), "writing the header of \(path)")
            streamTimeBase = stream.pointee.time_base
        } catch {
            closeFile()
            throw error
        }
    }

    deinit { closeFile() }

    /// Bytes already in the file (the muxer holds the current fragment in memory until the next keyframe).
    var bytesWritten: Int64 {
        guard let pb = context?.pointee.pb else { return 0 }
        return avio_tell(pb)
    }

    /// Writes a packet whose timestamps are in ms relative to the file's first frame.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws {
        av_packet_rescale_ts(packet, H264Encoder.timeBase, streamTimeBase)
        packet.pointee.stream_index = 0
        try checkLibav(av_write_frame(context, packet), "writing to \(path)")
    }

    /// Pushes what the file holds to stable storage (the power-loss half of crash safety).
    func syncToDisk() {
        if syncDescriptor >= 0 { fdatasync(syncDescriptor) }
    }

    /// Writes the last fragment and closes the file.
    func finish() throws {
        guard !closed, let context else { return }
        defer { closeFile() }
        try checkLibav(av_write_trailer(context), "finishing \(path)")
        syncToDisk()
    }

    /// Closes without a trailer, as a crash would; what reached the file stays readable up
    /// to its last complete fragment.
    func abandon() { closeFile() }

    private func closeFile() {
        guard !closed else { return }
        closed = true
        if let context {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
        }
        context = nil
        if syncDescriptor >= 0 { close(syncDescriptor) }
        syncDescriptor = -1
    }
}
