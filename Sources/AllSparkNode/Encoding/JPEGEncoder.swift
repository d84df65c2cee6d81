import CFFmpeg
import Foundation

/// Encodes single yuv420p pictures as JPEG with libavcodec's mjpeg encoder.
public final class JPEGEncoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int, quality: Int32 = 5) throws {
        self.width = width
        self.height = height
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else {
            throw LibavError("finding the mjpeg encoder", code: allspark_averror(ENOENT))
        }
        context = avcodec_alloc_context3(codec)
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let context, let frame, packet != nil else { throw LibavError("allocating a JPEG encoder", code: allspark_averror(ENOMEM)) }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.time_base = AVRational(num: 1, den: 25)
        // Video-range yuv420p as the node records it; mjpeg takes it as an unofficial extension.
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.color_range = AVCOL_RANGE_MPEG
        context.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL
        context.pointee.flags |= AV_CODEC_FLAG_QSCALE
        context.pointee.global_quality = quality * FF_QP2LAMBDA
        try checkLibav(avcodec_open2(context, codec, nil), "opening the mjpeg encoder")
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.quality = context.pointee.global_quality
        try checkLibav(av_frame_get_buffer(frame, 0), "allocating a JPEG picture")
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&context)
    }

    /// Encodes tightly packed yuv420p planes of this encoder's size.
    public func encode(packedPlanes planes: [UInt8]) throws -> Data {
        guard let context, let frame, let packet else { return Data() }
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        guard planes.count == width * height + 2 * chromaWidth * chromaHeight else {
            throw LibavError("encoding a \(width)x\(height) JPEG from \(planes.count) bytes", code: allspark_averror(EINVAL))
        }
        try checkLibav(av_frame_make_writable(frame), "preparing a JPEG picture")
        planes.withUnsafeBufferPointer { source in
            let base = source.baseAddress!
            let layout = [(0, width, height, 0), (1, chromaWidth, chromaHeight, width * height),
                          (2, chromaWidth, chromaHeight, width * height + chromaWidth * chromaHeight)]
            withUnsafeMutablePointer(to: &frame.pointee.data) { data in
                withUnsafeMutablePointer(to: &frame.pointee.linesize) { strides in
                    let planePointers = UnsafeMutableRawPointer(data).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
                    let planeStrides = UnsafeMutableRawPointer(strides).assumingMemoryBound(to: Int32.self)
                    for (index, planeWidth, planeHeight, offset) in layout {
                        let target = planePointers[index]!
                        let stride = Int(planeStrides[index])
                        for row in 0..<planeHeight {
                            (target + row * stride).update(from: base + offset + row * planeWidth, count: planeWidth)
                        }
                    }
                }
            }
        }
        try checkLibav(avcodec_send_frame(context, frame), "encoding a JPEG")
        try checkLibav(avcodec_receive_packet(context, packet), "receiving a JPEG")
        defer { av_packet_unref(packet) }
        return Data(bytes: packet.pointee.data, count: Int(packet.pointee.size))
    }
}
