import CFFmpeg

/// libavcodec's `h264_mp4toannexb` over one chunk's packets: MP4 stores H.264 with length
/// prefixes and its SPS/PPS in the avcC box; RTP's payloader and any client joining at a key
/// frame want start codes and the parameter sets in front of every key frame.
final class AnnexBFilter {
    private var context: UnsafeMutablePointer<AVBSFContext>?

    init(codecParameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws {
        guard let filter = av_bsf_get_by_name("h264_mp4toannexb") else {
            throw LibavError("finding the h264_mp4toannexb filter", code: allspark_averror(ENOSYS))
        }
        var allocated: UnsafeMutablePointer<AVBSFContext>?
        try checkLibav(av_bsf_alloc(filter, &allocated), "allocating the Annex B filter")
        context = allocated
        do {
            try checkLibav(avcodec_parameters_copy(allocated!.pointee.par_in, codecParameters), "copying the chunk's codec parameters")
            allocated!.pointee.time_base_in = timeBase
            try checkLibav(av_bsf_init(allocated), "starting the Annex B filter")
        } catch {
            av_bsf_free(&context)
            throw error
        }
    }

    deinit { av_bsf_free(&context) }

    /// Converts `packet` in place (it keeps its times and flags). False when the filter
    /// gives nothing back for it (a packet it cannot read).
    func convert(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard av_bsf_send_packet(context, packet) >= 0 else {
            av_packet_unref(packet)
            return false
        }
        return av_bsf_receive_packet(context, packet) >= 0
    }
}
