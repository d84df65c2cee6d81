import CFFmpeg

/// Puts each packet's capture time into the stream itself: a copy of the packet with a
/// `PrecisionTimeStampSEI` NAL unit before its first slice, in the packet's own framing.
/// One buffer and one packet serve every frame, so stamping allocates only while the
/// largest packet so far grows.
final class PrecisionTimeStamper {
    private var buffer: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()

    deinit {
        av_packet_free(&packet)
        buffer?.deallocate()
    }

    /// The status byte for the clock as the kernel sees it now (read once per chunk).
    static func currentStatus() -> UInt8 {
        KernelClock.read()?.synchronized == true ? PrecisionTimeStampSEI.lockedStatus : PrecisionTimeStampSEI.unlockedStatus
    }

    /// `source` with the SEI added; valid until the next call. `source` itself is unchanged.
    /// A packet without a slice, or whose NAL lengths do not add up, is returned as it is.
    func stamped(_ source: UnsafeMutablePointer<AVPacket>, epochMicroseconds: Int64, status: UInt8) throws
        -> UnsafeMutablePointer<AVPacket>
    {
        guard let packet else { throw LibavError("allocating a packet for time stamps", code: allspark_averror(ENOMEM)) }
        guard let sourceData = source.pointee.data, source.pointee.size > 0 else { return source }
        let data = UnsafeRawBufferPointer(start: sourceData, count: Int(source.pointee.size))
        let framing = H264Framing.of(data)
        var sliceOffset: Int?
        let consistent = framing.forEachNAL(in: data) { offset, nal in
            guard let header = nal.first, (1...5).contains(header & 0x1F) else { return true }
            sliceOffset = offset
            return false
        }
        guard consistent, let sliceOffset else { return source }
        let needed = data.count + 4 + PrecisionTimeStampSEI.maximumNALBytes + Int(AV_INPUT_BUFFER_PADDING_SIZE)
        let output = reserve(needed)
        output.update(from: sourceData, count: sliceOffset)
        let nalStart = output + sliceOffset + 4
        let nalBytes = PrecisionTimeStampSEI.writeNAL(epochMicroseconds: epochMicroseconds, status: status, to: nalStart)
        // Annex B: the start code 00 00 00 01; else the NAL unit's length.
        let prefix = framing == .annexB ? 1 : UInt32(nalBytes)
        for index in 0..<4 { output[sliceOffset + index] = UInt8(truncatingIfNeeded: prefix >> (24 - 8 * UInt32(index))) }
        let tail = data.count - sliceOffset
        (nalStart + nalBytes).update(from: sourceData + sliceOffset, count: tail)
        let size = sliceOffset + 4 + nalBytes + tail
        (output + size).update(repeating: 0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE))
        av_packet_unref(packet)
        packet.pointee.data = output
        packet.pointee.size = Int32(size)
        packet.pointee.pts = source.pointee.pts
        packet.pointee.dts = source.pointee.dts
        packet.pointee.duration = source.pointee.duration
        packet.pointee.flags = source.pointee.flags
        packet.pointee.stream_index = source.pointee.stream_index
        return packet
    }

    /// The buffer, grown (with room to spare, so growth soon stops) when `bytes` exceed it.
    private func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        if let buffer, capacity >= bytes { return buffer }
        buffer?.deallocate()
        capacity = bytes + bytes / 2
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        buffer = grown
        return grown
    }
}
