import Crypto

/// How a GOP's NAL units are hashed (the spec's "linked hashes"): the IDR's primary slice
/// is the GOP's anchor, `H(I)`; every other slice of the GOP is `H(H(I) ‖ H(F))`, so a
/// changed IDR shows in every hash of its GOP. Only slices count: SPS/PPS, AUD and all SEIs
/// (the signing SEIs too) are left out, as the spec says, so moving parameter sets into the
/// sample description, or adding a time stamp SEI, changes nothing. Hashes the NAL unit as
/// stored (header byte to the last byte, emulation prevention included, no start code or
/// length). Allocates nothing: the signer calls it for every slice it records.
struct NALHashChain {
    private var anchor: SHA256Digest?

    /// Appends the slice's hash entry to `list` (32 bytes). `startsGOP`: the first slice of
    /// an IDR access unit.
    mutating func append(slice nal: UnsafeRawBufferPointer, startsGOP: Bool, to list: inout [UInt8]) {
        var hasher = SHA256()
        hasher.update(bufferPointer: nal)
        let own = hasher.finalize()
        if startsGOP { anchor = own }
        guard let anchor, !startsGOP else {
            own.withUnsafeBytes { list.append(contentsOf: $0) }
            return
        }
        var linked = SHA256()
        anchor.withUnsafeBytes { linked.update(bufferPointer: $0) }
        own.withUnsafeBytes { linked.update(bufferPointer: $0) }
        linked.finalize().withUnsafeBytes { list.append(contentsOf: $0) }
    }

    /// Calls `body` with each slice of an access unit and whether it starts a GOP (the first
    /// slice of an IDR picture: the NAL units, not the container's sync flag, decide).
    static func forEachSlice(
        in data: UnsafeRawBufferPointer, _ body: (_ nal: UnsafeRawBufferPointer, _ startsGOP: Bool) -> Void
    ) {
        var first = true
        H264Framing.of(data).forEachNAL(in: data) { _, nal in
            guard let header = nal.first, H264Framing.isSlice(header) else { return true }
            body(nal, first && header & 0x1F == 5)
            first = false
            return true
        }
    }
}
