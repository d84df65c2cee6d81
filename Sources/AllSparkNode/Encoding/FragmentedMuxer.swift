import CFFmpeg
import Foundation

/// Writes one H.264 stream to a fragmented MP4 or MOV file. Each keyframe starts a new
/// fragment, and so does every `maximumFragmentMicroseconds` between keyframes; every
/// fragment goes to the file as it ends, through a `WholePageFileWriter`, so a killed
/// process leaves a file that is readable up to its last complete fragment.
/// (`Layout.progressive` writes a plain file with its index first instead, for downloads
/// that are written in one go: libavformat's own file output, which that layout reads back.)
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
    /// The fragmented layout's file, behind `context.pb`.
    private var pageWriter: WholePageFileWriter?
    /// The progressive layout: a second descriptor on libavformat's file, for fdatasync.
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
            switch layout {
            case .fragmented:
                let writer = try Self.asLibavError { try WholePageFileWriter(path: path) }
                pageWriter = writer
                context.pointee.pb = try Self.ioContext(writingTo: writer)
                context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            case .progressive:
                try checkLibav(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "creating \(path)")
                syncDescriptor = open(path, O_RDONLY | O_CLOEXEC)
            }
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

    /// Starts pushing the fragments written so far to stable storage (the power-loss half of
    /// crash safety) on the sync thread, all but a partial last page that the newest
    /// fragment, starting at `newestFragmentStart`, reaches past (`WholePageFileWriter`).
    /// - Throws: when an earlier sync failed.
    func syncToDisk(newestFragmentStart: Int64) throws {
        try Self.asLibavError { try pageWriter?.sync(newestStart: newestFragmentStart) }
    }

    /// Writes the last fragment, makes the whole file durable and closes it.
    func finish() throws {
        guard !closed, let context else { return }
        defer { closeFile() }
        try checkLibav(av_write_trailer(context), "finishing \(path)")
        if let pageWriter {
            try Self.asLibavError { try pageWriter.syncAll() }
        } else if syncDescriptor >= 0, fdatasync(syncDescriptor) != 0 {
            throw LibavError("syncing \(path)", code: allspark_averror(errno))
        }
    }

    /// Closes without a trailer, as a crash would; what reached the file stays readable up
    /// to its last complete fragment.
    func abandon() {
        try? pageWriter?.writePartialPage()
        closeFile()
    }

    private func closeFile() {
        guard !closed else { return }
        closed = true
        if let context {
            if pageWriter != nil {
                if let pb = context.pointee.pb {
                    av_freep(&pb.pointee.buffer)
                    var owned: UnsafeMutablePointer<AVIOContext>? = pb
                    avio_context_free(&owned)
                    context.pointee.pb = nil
                }
            } else if context.pointee.pb != nil {
                avio_closep(&context.pointee.pb)
            }
            avformat_free_context(context)
        }
        context = nil
        pageWriter = nil
        if syncDescriptor >= 0 { close(syncDescriptor) }
        syncDescriptor = -1
    }

    /// Runs `body`, reporting a file failure as libavformat's own output would (the recorder
    /// tells a read-only store by the code, whichever way it failed).
    private static func asLibavError<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as DurableFile.Failure {
            throw LibavError("\(failure.operation) \(failure.path)", code: allspark_averror(failure.code))
        }
    }

    /// An AVIOContext whose writes and seeks go to `writer` (which outlives it: the muxer owns both).
    private static func ioContext(writingTo writer: WholePageFileWriter) throws -> UnsafeMutablePointer<AVIOContext> {
        let bufferSize: Int32 = 64 << 10
        guard let buffer = av_malloc(Int(bufferSize)) else { throw LibavError("allocating an AVIO buffer", code: allspark_averror(ENOMEM)) }
        let context = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 1, Unmanaged.passUnretained(writer).toOpaque(), nil,
            { opaque, bytes, count in
                guard let opaque, let bytes, count > 0 else { return 0 }
                let writer = Unmanaged<WholePageFileWriter>.fromOpaque(opaque).takeUnretainedValue()
                do {
                    try writer.write(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
                    return count
                } catch let failure as DurableFile.Failure {
                    return allspark_averror(failure.code)
                } catch {
                    return allspark_averror(EIO)
                }
            },
            { opaque, offset, whence in
                guard let opaque else { return Int64(allspark_averror(EINVAL)) }
                let writer = Unmanaged<WholePageFileWriter>.fromOpaque(opaque).takeUnretainedValue()
                let target: Int64
                switch whence & ~AVSEEK_FORCE {
                case AVSEEK_SIZE: return writer.size
                case SEEK_SET: target = offset
                case SEEK_CUR: target = writer.position + offset
                case SEEK_END: target = writer.size + offset
                default: return Int64(allspark_averror(EINVAL))
                }
                do {
                    try writer.seek(to: target)
                    return target
                } catch {
                    return Int64(allspark_averror(EINVAL))
                }
            })
        guard let context else {
            av_free(buffer)
            throw LibavError("allocating an AVIO context", code: allspark_averror(ENOMEM))
        }
        context.pointee.seekable = AVIO_SEEKABLE_NORMAL
        return context
    }
}
