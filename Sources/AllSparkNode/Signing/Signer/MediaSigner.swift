import CFFmpeg
import Crypto

/// The recording's one seam for media signing, between the time stamper and the muxer.
/// Every slice is hashed as it passes (`NALHashChain`). An IDR closes the GOP before it:
/// its SEI is signed at once and goes into the IDR's access unit ahead of the certificate
/// SEI, as the reference signer places it (a viewer who joins at that IDR gets it before
/// any certificate, so validators pass over the GOP it never saw). 0.5 s of frames since
/// the (partial) GOP began closes a partial GOP, signed by the `SignatureWorker`; its SEI
/// goes into the next frame that passes once it is ready (after the GOP, where validators
/// look for it). Each chunk's first frame also carries the certificate SEI, so a chunk or
/// a clip verifies on its own.
///
/// It holds back one frame: a chunk's last frame is written only when the chunk ends, with
/// the SEIs that sign the chunk's last GOP behind its picture (as the reference signer ends
/// a stream), so no chunk leaves a GOP signed only in the next one. Live viewers are not held back: they get each frame as it
/// passes (`liveView`), the SEIs a chunk's last frame gets at its end ride to them in the
/// next frame, and each of their IDR frames carries the certificate SEI, so a viewer that
/// joins at any keyframe can check what it saves. In steady state the frame path
/// allocates nothing: hash lists are recycled from the worker and packets are copied into
/// buffers that only grow.
final class MediaSigner {
    /// A partial GOP is closed after this much capture time: a recording cut off anywhere
    /// (a saved live stream, a power cut) leaves at most this much unsigned.
    static let maximumGOPMicroseconds: Int64 = 500_000
    /// And after this many slices: the reference implementation's hash list holds 300.
    static let maximumGOPSlices = 300

    private let worker: SignatureWorker
    /// The signed certificate SEI (escaped NAL unit), made once.
    private let certificateNAL: [UInt8]
    private var chain = NALHashChain()
    private var hashes: [UInt8] = []
    private var spareHashes: [[UInt8]] = []
    private var signed: [SignatureWorker.Signed] = []
    private var gopStartMicroseconds: Int64?
    private var gopEndMicroseconds: Int64 = 0
    /// The reference implementation's first GOP SEI carries counter 1.
    private var counter: UInt32 = 1
    /// Signed SEIs waiting for a frame to ride in: NAL units only, in order.
    private var pendingNALs: [[UInt8]] = []
    private let inserter = PacketNALInserter()
    /// A chunk's last frame's own SEIs (its time stamp), repeated behind its signing SEIs:
    /// GStreamer's h264parse hands on an access unit's last SEI first, and readers take the
    /// first. Kept in one buffer that only grows.
    private var ownSEIBytes: [UInt8] = []
    private var ownSEIRanges: [Range<Int>] = []
    private var held = HeldPacket()
    private var released = HeldPacket()
    /// The SEIs the last chunk's last frame got when the chunk ended, after live viewers
    /// had that frame: they go to live viewers in the next frame.
    private var liveCarryOver: [[UInt8]] = []
    private let liveInserter = PacketNALInserter()
    private let liveCertificateInserter = PacketNALInserter()
    /// The frame last passed, with its SEIs, as live viewers get it. Valid until the next call.
    private(set) var liveView: UnsafeMutablePointer<AVPacket>?

    init(identity: MediaSigningIdentity) {
        worker = SignatureWorker(key: identity.key)
        let document = MediaSigningSEI.document(
            reserved: MediaSigningSEI.sentOnceFlag,
            tlvs: MediaSigningSEI.cryptoInfoTLV
                + MediaSigningSEI.vendorInfoTLV(firmware: "allspark-node", serial: identity.nodeName, manufacturer: "AllSpark")
                + MediaSigningSEI.certificatesTLV(pem: identity.chainWithoutAnchorPEM))
        certificateNAL = MediaSigningSEI.nal(document: document, signature: SignatureWorker.signature(of: document, with: identity.key))
        hashes.reserveCapacity(Self.maximumGOPSlices * MediaSigningSEI.hashBytes)
        spareHashes.reserveCapacity(16)
        ownSEIBytes.reserveCapacity(256)
        ownSEIRanges.reserveCapacity(4)
        signed.reserveCapacity(16)
        pendingNALs.reserveCapacity(16)
        liveCarryOver.reserveCapacity(16)
    }

    deinit { worker.stop() }

    /// Bound on the SEIs handed to the worker and not yet in a frame, and the part of it
    /// that `pendingNALs` account for.
    private var submittedBytesBound = 0
    private var pendingBytesBound = 0
    /// The slices a packet may add to the open GOP before the bound below is asked again.
    private static let slicesPerPacketAllowance = 16

    /// The most bytes `pass` (or `finishChunk`) can add to the next packet: the certificate,
    /// the SEIs signed or being signed, the open GOP's, and the time stamp repeated behind
    /// them. For the store's reservations.
    var maximumBytesAddedToNextPacket: Int {
        let openSlices = hashes.count / MediaSigningSEI.hashBytes + Self.slicesPerPacketAllowance
        return 4 + certificateNAL.count + submittedBytesBound + Self.seiBytesBound(slices: openSlices)
            + 4 + PrecisionTimeStampSEI.maximumNALBytes
    }

    private static func seiBytesBound(slices: Int) -> Int {
        4 + MediaSigningSEI.maximumEscapedBytes(rawBytes: MediaSigningSEI.gopSEIRawBytes(nalCount: slices))
    }

    /// Hashes `packet` (capture time `captureMicroseconds`) and holds a copy of it with the
    /// SEIs ready by now; returns the frame held before (valid until the next call), or nil
    /// for a chunk's first frame.
    func pass(_ packet: UnsafeMutablePointer<AVPacket>, captureMicroseconds: Int64, startsChunk: Bool) throws
        -> UnsafeMutablePointer<AVPacket>?
    {
        let bytes = UnsafeRawBufferPointer(start: packet.pointee.data, count: packet.pointee.data == nil ? 0 : Int(packet.pointee.size))
        var startsGOP = false
        NALHashChain.forEachSlice(in: bytes) { _, first in if first { startsGOP = true } }
        if let start = gopStartMicroseconds,
            startsGOP || captureMicroseconds - start >= Self.maximumGOPMicroseconds
                || hashes.count >= Self.maximumGOPSlices * MediaSigningSEI.hashBytes
        {
            closeGOP(partial: !startsGOP, endMicroseconds: captureMicroseconds)
            // Into this IDR's access unit, not among the next GOP's pictures (one signature
            // a GOP on this thread, tens of microseconds).
            if startsGOP { worker.waitUntilDone() }
        }
        if gopStartMicroseconds == nil { gopStartMicroseconds = captureMicroseconds }
        gopEndMicroseconds = captureMicroseconds + max(0, Int64(packet.pointee.duration)) * 1000
        NALHashChain.forEachSlice(in: bytes) { nal, first in chain.append(slice: nal, startsGOP: first, to: &hashes) }
        collectSigned()
        let withSEIs = try insertPending(into: packet, certificate: startsChunk)
        swap(&held, &released)
        let previous = released.packet
        try held.hold(withSEIs)
        liveView = try forLiveViewers(held.packet!, certificate: startsGOP && !startsChunk)
        return previous
    }

    /// The frame as live viewers get it: the carry-over first (its GOPs came before this
    /// frame's), the frame's own signing SEIs, then the certificate when asked for (behind
    /// them, as in a chunk's first frame), then the frame's other SEIs.
    private func forLiveViewers(_ packet: UnsafeMutablePointer<AVPacket>, certificate: Bool) throws -> UnsafeMutablePointer<AVPacket> {
        var output = packet
        if certificate {
            output = try liveCertificateInserter.inserting(
                into: output, at: .beforeFirstSEIOrSlice, keptAhead: MediaSigningSEI.isSigningSEI, maximumAddedBytes: 4 + certificateNAL.count
            ) { output, framing in framing.writeNAL(certificateNAL, to: output) }
        }
        guard !liveCarryOver.isEmpty else { return output }
        let added = liveCarryOver.reduce(0) { $0 + 4 + $1.count }
        let carried = try liveInserter.inserting(into: output, at: .beforeFirstSEIOrSlice, maximumAddedBytes: added) { output, framing in
            liveCarryOver.reduce(0) { offset, nal in offset + framing.writeNAL(nal, to: output + offset) }
        }
        if carried != output { liveCarryOver.removeAll(keepingCapacity: true) }
        return carried
    }

    /// Ends the chunk: signs what is not signed yet, waiting for it, and returns the held
    /// last frame with those SEIs behind its picture (nil when no frame is held). The next
    /// frame is the next chunk's IDR, so the GOP closes as at any IDR.
    func finishChunk() throws -> UnsafeMutablePointer<AVPacket>? {
        guard let last = held.packet else { return nil }
        if gopStartMicroseconds != nil { closeGOP(partial: false, endMicroseconds: gopEndMicroseconds) }
        worker.waitUntilDone()
        collectSigned()
        let carried = pendingNALs.count
        liveCarryOver.append(contentsOf: pendingNALs)
        collectOwnSEIs(of: last)
        let output = try insertPending(into: last, certificate: false, at: .afterLastNAL, repeatingOwnSEIs: true)
        // A frame with no slice took nothing: the SEIs stay pending, for live viewers too.
        if output == last { liveCarryOver.removeLast(carried) }
        held.release()
        return output
    }

    /// Keeps the frame's SEIs ahead of its picture that are not signing SEIs (its time
    /// stamp), to repeat them behind the signing SEIs it gets behind its picture.
    private func collectOwnSEIs(of packet: UnsafeMutablePointer<AVPacket>) {
        ownSEIBytes.removeAll(keepingCapacity: true)
        ownSEIRanges.removeAll(keepingCapacity: true)
        guard let data = packet.pointee.data else { return }
        MediaSigningSEI.forEachOtherSEIAheadOfPicture(in: UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size))) { nal in
            ownSEIRanges.append(ownSEIBytes.count..<ownSEIBytes.count + nal.count)
            ownSEIBytes.append(contentsOf: nal)
        }
    }

    /// A chunk that ends without `finishChunk` (its file failed or vanished): the held frame is dropped.
    func abandonChunk() {
        held.release()
    }

    /// `endMicroseconds`: the next GOP's first frame's capture time (or, at a chunk's end,
    /// the end of its last frame).
    private func closeGOP(partial: Bool, endMicroseconds: Int64) {
        guard let start = gopStartMicroseconds, !hashes.isEmpty else {
            gopStartMicroseconds = nil
            return
        }
        var next = spareHashes.popLast() ?? []
        next.reserveCapacity(Self.maximumGOPSlices * MediaSigningSEI.hashBytes)
        swap(&next, &hashes)
        submittedBytesBound += Self.seiBytesBound(slices: next.count / MediaSigningSEI.hashBytes)
        worker.submit(
            .init(
                partial: partial, startTime: MediaSigningSEI.windowsTime(epochMicroseconds: start),
                endTime: MediaSigningSEI.windowsTime(epochMicroseconds: endMicroseconds), counter: counter, hashes: next))
        counter &+= 1
        gopStartMicroseconds = nil
    }

    private func collectSigned() {
        worker.takeSigned(into: &signed)
        for item in signed {
            pendingNALs.append(item.nal)
            pendingBytesBound += Self.seiBytesBound(slices: item.slices)
            spareHashes.append(item.recycledHashes)
        }
        signed.removeAll(keepingCapacity: true)
    }

    /// `repeatingOwnSEIs`: put the SEIs `collectOwnSEIs` kept behind the pending SEIs.
    private func insertPending(
        into packet: UnsafeMutablePointer<AVPacket>, certificate: Bool, at position: PacketNALInserter.Position = .beforeFirstSEIOrSlice,
        repeatingOwnSEIs: Bool = false
    ) throws -> UnsafeMutablePointer<AVPacket> {
        guard certificate || !pendingNALs.isEmpty else { return packet }
        let repeats = repeatingOwnSEIs ? ownSEIRanges : []
        let added = (certificate ? 4 + certificateNAL.count : 0) + pendingNALs.reduce(0) { $0 + 4 + $1.count }
            + repeats.reduce(0) { $0 + 4 + $1.count }
        let output = try inserter.inserting(
            into: packet, at: position, keptAhead: MediaSigningSEI.isSigningSEI, maximumAddedBytes: added
        ) { output, framing in
            // GOP SEIs ahead of the certificate: a validator that starts here meets the SEI of
            // a GOP it does not have before it has a key, and passes over it.
            var offset = 0
            for nal in pendingNALs { offset += framing.writeNAL(nal, to: output + offset) }
            if certificate { offset += framing.writeNAL(certificateNAL, to: output + offset) }
            ownSEIBytes.withUnsafeBytes { own in
                for range in repeats { offset += framing.writeNAL(UnsafeRawBufferPointer(rebasing: own[range]), to: output + offset) }
            }
            return offset
        }
        // A packet without a slice carries nothing; its SEIs wait for the next.
        if output != packet {
            submittedBytesBound -= pendingBytesBound
            pendingBytesBound = 0
            pendingNALs.removeAll(keepingCapacity: true)
        }
        return output
    }
}

/// A packet copied into a buffer of its own, so it outlives the encoder's and the
/// inserter's reuse of theirs. The buffer only grows.
private final class HeldPacket {
    private var buffer: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private var storage: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
    private(set) var packet: UnsafeMutablePointer<AVPacket>?

    deinit {
        av_packet_free(&storage)
        buffer?.deallocate()
    }

    func hold(_ source: UnsafeMutablePointer<AVPacket>) throws {
        guard let storage else { throw LibavError("allocating a packet for signing", code: allspark_averror(ENOMEM)) }
        let size = Int(source.pointee.size)
        let needed = size + Int(AV_INPUT_BUFFER_PADDING_SIZE)
        if capacity < needed {
            buffer?.deallocate()
            capacity = needed + needed / 2
            buffer = .allocate(capacity: capacity)
        }
        if size > 0 { buffer!.update(from: source.pointee.data, count: size) }
        (buffer! + size).update(repeating: 0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE))
        storage.pointsAt(buffer!, size: size, withTimingOf: source)
        packet = storage
    }

    func release() { packet = nil }
}
