import CFFmpeg

/// Puts each packet's capture time into the stream itself: a copy of the packet with a
/// `PrecisionTimeStampSEI` NAL unit before its first slice, in the packet's own framing.
final class PrecisionTimeStamper {
    private let inserter = PacketNALInserter()

    /// The status byte for the clock as the kernel sees it now (read once per chunk).
    static func currentStatus() -> UInt8 {
        KernelClock.read()?.synchronized == true ? PrecisionTimeStampSEI.lockedStatus : PrecisionTimeStampSEI.unlockedStatus
    }

    /// `source` with the SEI added; valid until the next call. `source` itself is unchanged.
    /// A packet without a slice, or whose NAL lengths do not add up, is returned as it is.
    func stamped(_ source: UnsafeMutablePointer<AVPacket>, epochMicroseconds: Int64, status: UInt8) throws
        -> UnsafeMutablePointer<AVPacket>
    {
        try inserter.inserting(into: source, maximumAddedBytes: 4 + PrecisionTimeStampSEI.maximumNALBytes) { output, framing in
            let nalBytes = PrecisionTimeStampSEI.writeNAL(epochMicroseconds: epochMicroseconds, status: status, to: output + 4)
            framing.writePrefix(nalBytes: nalBytes, to: output)
            return 4 + nalBytes
        }
    }
}
