import CFFmpeg
import Foundation

/// What libavformat and libavcodec make of a chunk file: decoded independently of the node's own reader.
struct DecodedChunk {
    var packets = 0
    var decodedFrames = 0
    var firstPacketIsKeyframe = false
    var width = 0
    var height = 0
    var codec = ""
    var pixelFormat = ""
    /// Presentation times of the packets, seconds, ascending.
    var presentationTimes: [Double] = []

    static func decode(_ path: String) throws -> DecodedChunk {
        var result = DecodedChunk()
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&context, path, nil, nil) >= 0 else { throw TestFailure("libavformat cannot open \(path)") }
        defer { avformat_close_input(&context) }
        guard avformat_find_stream_info(context, nil) >= 0 else { throw TestFailure("no stream info in \(path)") }
        var codec: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)
        guard index >= 0, let codec else { throw TestFailure("no video stream in \(path)") }
        let stream = context!.pointee.streams[Int(index)]!
        var decoder: UnsafeMutablePointer<AVCodecContext>? = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&decoder) }
        guard avcodec_parameters_to_context(decoder, stream.pointee.codecpar) >= 0, avcodec_open2(decoder, codec, nil) >= 0 else {
            throw TestFailure("cannot open a decoder for \(path)")
        }
        result.width = Int(stream.pointee.codecpar.pointee.width)
        result.height = Int(stream.pointee.codecpar.pointee.height)
        result.codec = String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
        result.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(stream.pointee.codecpar.pointee.format)).map { String(cString: $0) } ?? "?"
        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        var frame: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        let timeBase = av_q2d(stream.pointee.time_base)
        func receiveAll() {
            while avcodec_receive_frame(decoder, frame) >= 0 {
                result.decodedFrames += 1
                av_frame_unref(frame)
            }
        }
        while av_read_frame(context, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard packet!.pointee.stream_index == index else { continue }
            if result.packets == 0 { result.firstPacketIsKeyframe = packet!.pointee.flags & AV_PKT_FLAG_KEY != 0 }
            result.packets += 1
            result.presentationTimes.append(Double(packet!.pointee.pts) * timeBase)
            if avcodec_send_packet(decoder, packet) >= 0 { receiveAll() }
        }
        avcodec_send_packet(decoder, nil)
        receiveAll()
        result.presentationTimes.sort()
        return result
    }
}
