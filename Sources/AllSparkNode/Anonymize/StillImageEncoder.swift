import CFFmpeg
import Foundation

/// Encodes one picture as a PNG or JPEG file with libavcodec's png and mjpeg encoders.
enum StillImageEncoder {
    /// JPEG quantiser scale (2 is the best quality short of lossless): re-encoding a photo
    /// should not visibly degrade what was not masked.
    static let jpegQuality: Int32 = 2

    /// `frame` must be in `format.pixelFormat`.
    static func write(_ frame: OwnedFrame, as format: StillImageFormat, to path: String) throws {
        guard let codec = avcodec_find_encoder_by_name(format.encoderName) else {
            throw LibavError("finding encoder \(format.encoderName)", code: allspark_averror(ENOENT))
        }
        var context: UnsafeMutablePointer<AVCodecContext>? = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let encoder = context else { throw LibavError("allocating encoder", code: allspark_averror(ENOMEM)) }
        encoder.pointee.width = Int32(frame.width)
        encoder.pointee.height = Int32(frame.height)
        encoder.pointee.pix_fmt = format.pixelFormat
        encoder.pointee.time_base = AVRational(num: 1, den: 25)
        if format == .jpeg {
            encoder.pointee.flags |= AV_CODEC_FLAG_QSCALE
            encoder.pointee.global_quality = FF_QP2LAMBDA * jpegQuality
            frame.pointer.pointee.quality = encoder.pointee.global_quality
        }
        try checkLibav(avcodec_open2(encoder, codec, nil), "opening encoder \(format.encoderName)")
        frame.pointer.pointee.pts = 0
        try checkLibav(avcodec_send_frame(encoder, frame.pointer), "encoding \(path)")
        try checkLibav(avcodec_send_frame(encoder, nil), "finishing \(path)")

        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { throw LibavError("allocating a packet", code: allspark_averror(ENOMEM)) }
        var bytes = Data()
        while true {
            let received = avcodec_receive_packet(encoder, packet)
            if received == allspark_averror_eof() { break }
            try checkLibav(received, "encoding \(path)")
            bytes.append(packet.pointee.data, count: Int(packet.pointee.size))
            av_packet_unref(packet)
        }
        guard !bytes.isEmpty else { throw LibavError("encoding \(path)", code: allspark_averror_invaliddata()) }
        try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
