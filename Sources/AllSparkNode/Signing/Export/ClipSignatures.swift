import CFFmpeg

/// Keeps a clip cut out of signed chunks verifiable on its own, as the spec advises for
/// exports: the certificate SEI, which only opens each chunk, is copied into the clip's
/// first frame when the clip starts later; and the SEIs signing the clip's last GOP, which
/// the recorder put in frames after the cut, are moved behind the picture of the clip's
/// last frame (a validator reads a GOP's SEI after the GOP). A clip ends where a GOP does,
/// at a keyframe. SEIs are not hashed, so neither move changes anything signed.
final class ClipSignatures {
    private var certificateNAL: [UInt8]?
    private var trailingNALs: [[UInt8]] = []
    private let inserter = PacketNALInserter()

    /// A frame before the clip: its certificate SEI, if it has one, is the latest.
    func observeBeforeClip(_ packet: UnsafeMutablePointer<AVPacket>) {
        forEachSigningSEI(in: packet) { nal, parsed in
            if parsed.isSentOnce { certificateNAL = nal }
        }
    }

    /// A frame after the clip: keeps the GOP SEIs that sign footage from before `clipEndMs`.
    /// Returns false once it has seen one for a GOP from `clipEndMs` on (no more can follow).
    func observeAfterClip(_ packet: UnsafeMutablePointer<AVPacket>, clipEndMs: Int64) -> Bool {
        var more = true
        forEachSigningSEI(in: packet) { nal, parsed in
            guard let info = parsed.gopInfo else { return }
            if MediaSigningSEI.epochMs(windowsTime: info.startTime) <= clipEndMs {
                trailingNALs.append(nal)
            } else {
                more = false
            }
        }
        return more
    }

    /// The clip's first frame, with the certificate SEI when it lacks one.
    func firstPacket(_ packet: UnsafeMutablePointer<AVPacket>) throws -> UnsafeMutablePointer<AVPacket> {
        var hasCertificate = false
        forEachSigningSEI(in: packet) { _, parsed in hasCertificate = hasCertificate || parsed.isSentOnce }
        guard !hasCertificate, let certificateNAL else { return packet }
        return try insert([certificateNAL], into: packet)
    }

    /// The clip's last frame, with the SEIs that sign the clip's end behind its picture and
    /// the frame's own SEIs (its time stamp) repeated after them, as the recorder ends a
    /// chunk: GStreamer's h264parse hands on an access unit's last SEI first.
    func lastPacket(_ packet: UnsafeMutablePointer<AVPacket>) throws -> UnsafeMutablePointer<AVPacket> {
        guard !trailingNALs.isEmpty else { return packet }
        return try insert(trailingNALs + Self.ownSEIs(of: packet), into: packet, at: .afterLastNAL)
    }

    /// The SEIs ahead of the packet's picture that are not signing SEIs.
    private static func ownSEIs(of packet: UnsafeMutablePointer<AVPacket>) -> [[UInt8]] {
        guard let data = packet.pointee.data else { return [] }
        var found: [[UInt8]] = []
        MediaSigningSEI.forEachOtherSEIAheadOfPicture(in: UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size))) { found.append(Array($0)) }
        return found
    }

    /// Behind the frame's own signing SEIs: GOP SEIs stay in counter order.
    private func insert(
        _ nals: [[UInt8]], into packet: UnsafeMutablePointer<AVPacket>, at position: PacketNALInserter.Position = .beforeFirstSEIOrSlice
    ) throws -> UnsafeMutablePointer<AVPacket> {
        let added = nals.reduce(0) { $0 + 4 + $1.count }
        return try inserter.inserting(into: packet, at: position, keptAhead: MediaSigningSEI.isSigningSEI, maximumAddedBytes: added) { output, framing in
            nals.reduce(0) { offset, nal in offset + framing.writeNAL(nal, to: output + offset) }
        }
    }

    private func forEachSigningSEI(in packet: UnsafeMutablePointer<AVPacket>, _ body: ([UInt8], MediaSigningSEI.Parsed) -> Void) {
        guard let data = packet.pointee.data else { return }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size))
        H264Framing.of(bytes).forEachNAL(in: bytes) { _, nal in
            if let parsed = MediaSigningSEI.parse(nal: nal) { body(Array(nal), parsed) }
            return true
        }
    }
}
