import CFFmpeg

/// A copy of a packet with NAL units added before its first slice (where H.264 wants SEIs:
/// ahead of the picture in its access unit), or behind it, in the packet's own framing. One buffer
/// and one packet serve every call, so it allocates only while the largest packet so far
/// grows. Used by the time stamps and by media signing.
final class PacketNALInserter {
    private var buffer: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()

    deinit {
        av_packet_free(&packet)
        buffer?.deallocate()
    }

    /// Where the added NAL units go.
    enum Position {
        case beforeFirstSlice
        /// Ahead of the SEIs already there too. GStreamer's h264parse hands on the last SEI
        /// of an access unit first, and readers that take the first see the time stamp only
        /// when it comes last.
        case beforeFirstSEIOrSlice
        /// Behind the picture: for SEIs that sign the picture itself, which a validator
        /// must read after it (the reference implementation ends a stream the same way).
        case afterLastNAL
    }

    /// `source` with what `write` puts at the given pointer (at most `maximumAddedBytes`,
    /// NAL units each with its 4-byte framing; returns how many bytes) at `position`.
    /// At `.beforeFirstSEIOrSlice`, SEIs that `keptAhead` picks out stay ahead (so NAL units
    /// added to one packet in two goes keep their order). Valid until the next call;
    /// `source` itself is unchanged. A packet without a slice, or whose NAL lengths do not
    /// add up, is returned as it is.
    func inserting(
        into source: UnsafeMutablePointer<AVPacket>, at position: Position = .beforeFirstSlice,
        keptAhead: (UnsafeRawBufferPointer) -> Bool = { _ in false }, maximumAddedBytes: Int,
        _ write: (_ output: UnsafeMutablePointer<UInt8>, _ framing: H264Framing) -> Int
    ) throws -> UnsafeMutablePointer<AVPacket> {
        guard let packet else { throw LibavError("allocating a packet for SEI", code: allspark_averror(ENOMEM)) }
        guard let sourceData = source.pointee.data, source.pointee.size > 0 else { return source }
        let data = UnsafeRawBufferPointer(start: sourceData, count: Int(source.pointee.size))
        let framing = H264Framing.of(data)
        var sliceOffset: Int?
        var seiOffset: Int?
        let consistent = framing.forEachNAL(in: data) { offset, nal in
            guard let header = nal.first else { return true }
            if header & 0x1F == 6, seiOffset == nil, !keptAhead(nal) { seiOffset = offset }
            guard H264Framing.isSlice(header) else { return true }
            sliceOffset = offset
            return false
        }
        guard consistent, var sliceOffset else { return source }
        if position == .beforeFirstSEIOrSlice, let seiOffset { sliceOffset = seiOffset }
        if position == .afterLastNAL { sliceOffset = data.count }
        let output = reserve(data.count + maximumAddedBytes + Int(AV_INPUT_BUFFER_PADDING_SIZE))
        output.update(from: sourceData, count: sliceOffset)
        let added = write(output + sliceOffset, framing)
        let tail = data.count - sliceOffset
        (output + sliceOffset + added).update(from: sourceData + sliceOffset, count: tail)
        let size = sliceOffset + added + tail
        (output + size).update(repeating: 0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE))
        packet.pointsAt(output, size: size, withTimingOf: source)
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

extension UnsafeMutablePointer<AVPacket> {
    /// Makes this (unreferenced) packet one over `data`, a buffer its caller owns, with
    /// `source`'s timestamps, flags and stream.
    func pointsAt(_ data: UnsafeMutablePointer<UInt8>, size: Int, withTimingOf source: UnsafeMutablePointer<AVPacket>) {
        av_packet_unref(self)
        pointee.data = data
        pointee.size = Int32(size)
        pointee.pts = source.pointee.pts
        pointee.dts = source.pointee.dts
        pointee.duration = source.pointee.duration
        pointee.flags = source.pointee.flags
        pointee.stream_index = source.pointee.stream_index
    }
}
