import CFFmpeg

/// Reads the first picture of an image file with libavformat (image2) and libavcodec, in
/// the file's own pixel format.
enum StillImageDecoder {
    static func decode(_ path: String) throws -> OwnedFrame {
        var context: UnsafeMutablePointer<AVFormatContext>?
        try checkLibav(avformat_open_input(&context, path, nil, nil), "opening \(path)")
        defer { avformat_close_input(&context) }
        try checkLibav(avformat_find_stream_info(context, nil), "reading stream info of \(path)")
        var codec: UnsafePointer<AVCodec>?
        let streamIndex = try checkLibav(
            av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0), "finding a picture in \(path)")
        guard let codec, let stream = context?.pointee.streams[Int(streamIndex)] else {
            throw LibavError("finding a decoder for \(path)", code: allspark_averror_invaliddata())
        }
        var decoder: UnsafeMutablePointer<AVCodecContext>? = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&decoder) }
        guard decoder != nil else { throw LibavError("allocating a decoder", code: allspark_averror(ENOMEM)) }
        try checkLibav(avcodec_parameters_to_context(decoder, stream.pointee.codecpar), "configuring the decoder")
        try checkLibav(avcodec_open2(decoder, codec, nil), "opening the decoder for \(path)")

        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { throw LibavError("allocating a packet", code: allspark_averror(ENOMEM)) }
        let frame = try OwnedFrame()
        while true {
            let received = avcodec_receive_frame(decoder, frame.pointer)
            if received == 0 { return frame }
            guard received == allspark_averror_eagain() else { throw LibavError("decoding \(path)", code: received) }
            let read = av_read_frame(context, packet)
            if read == allspark_averror_eof() {
                try checkLibav(avcodec_send_packet(decoder, nil), "draining the decoder")
                continue
            }
            try checkLibav(read, "reading \(path)")
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            try checkLibav(avcodec_send_packet(decoder, packet), "decoding \(path)")
        }
    }
}
