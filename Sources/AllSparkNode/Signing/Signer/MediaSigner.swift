import CFFmpeg
import Crypto

/// The recording's one seam for media signing, between the time stamper and the muxer.
/// Every slice is hashed as it passes (`NALHashChain`); an IDR, or 1 s of frames since the
/// (partial) GOP began, closes the GOP and hands it to the `SignatureWorker`; its signed
/// SEI goes into the next frame that passes once it is ready. Each chunk's first frame also
/// carries the certificate SEI, so a chunk or a clip verifies on its own.
///
/// It holds back one frame: a chunk's last frame is written only when the chunk ends, with
/// the SEI that signs the chunk's last GOP in it, so no chunk leaves a GOP signed only in
/// the next one. Live viewers are not held back: they get each frame as it passes
/// (`liveView`), and the SEIs a chunk's last frame gets at its end ride to them in the next
/// frame. In steady state the frame path allocates nothing: hash lists are recycled from
/// the worker and packets are copied into buffers that only grow.
final class MediaSigner {
    /// A partial GOP is closed after this much capture time.
    static let maximumGOPMicroseconds: Int64 = 1_000_000
    /// And after this many slices, which keeps the hash list within its 2-byte TLV length.
    static let maximumGOPSlices = 1024

    private let worker: SignatureWorker
    /// The signed certificate SEI (escaped NAL unit), made once.
    private let certificateNAL: [UInt8]
    private var chain = NALHashChain()
    private var hashes: [UInt8] = []
    private var spareHashes: [[UInt8]] = []
    private var signed: [SignatureWorker.Signed] = []
    private var gopStartMicroseconds: Int64?
    private var gopEndMicroseconds: Int64 = 0
    private var counter: UInt32 = 0
    /// Signed SEIs waiting for a frame to ride in: NAL units only, in order.
    private var pendingNALs: [[UInt8]] = []
    private let inserter = PacketNALInserter()
    private var held = HeldPacket()
    private var released = HeldPacket()
    /// The SEIs the last chunk's last frame got when the chunk ended, after live viewers
    /// had that frame: they go to live viewers in the next frame.
    private var liveCarryOver: [[UInt8]] = []
    private let liveInserter = PacketNALInserter()
    /// The frame last passed, with its SEIs, as live viewers get it. Valid until the next call.
    private(set) var liveView: UnsafeMutablePointer<AVPacket>?

    init(identity: MediaSigningIdentity) {
        worker = SignatureWorker(key: identity.key)
        let document = MediaSigningSEI.document(
            reserved: MediaSigningSEI.sentOnceFlag,
            tlvs: MediaSigningSEI.cryptoInfoTLV
                + MediaSigningSEI.vendorInfoTLV(firmware: "allspark-node", serial: identity.nodeName, manufacturer: "AllSpark")
                + MediaSigningSEI.certificatesTLV(pem: identity.certificatePEM, operatorProvided: identity.operatorProvided))
        certificateNAL = MediaSigningSEI.nal(document: document, signature: SignatureWorker.signature(of: document, with: identity.key))
        hashes.reserveCapacity(Self.maximumGOPSlices * MediaSigningSEI.hashBytes)
        spareHashes.reserveCapacity(16)
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
    /// the SEIs signed or being signed, and the open GOP's. For the store's reservations.
    var maximumBytesAddedToNextPacket: Int {
        let openSlices = hashes.count / MediaSigningSEI.hashBytes + Self.slicesPerPacketAllowance
        return 4 + certificateNAL.count + submittedBytesBound + Self.seiBytesBound(slices: openSlices)
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
            closeGOP(partial: !startsGOP)
        }
        if gopStartMicroseconds == nil { gopStartMicroseconds = captureMicroseconds }
        gopEndMicroseconds = captureMicroseconds
        NALHashChain.forEachSlice(in: bytes) { nal, first in chain.append(slice: nal, startsGOP: first, to: &hashes) }
        collectSigned()
        let withSEIs = try insertPending(into: packet, certificate: startsChunk)
        swap(&held, &released)
        let previous = released.packet
        try held.hold(withSEIs)
        liveView = try carryingOver(into: held.packet!)
        return previous
    }

    private func carryingOver(into packet: UnsafeMutablePointer<AVPacket>) throws -> UnsafeMutablePointer<AVPacket> {
        guard !liveCarryOver.isEmpty else { return packet }
        let added = liveCarryOver.reduce(0) { $0 + 4 + $1.count }
        let output = try liveInserter.inserting(
            into: packet, at: .beforeFirstSEIOrSlice, keptAhead: MediaSigningSEI.isSigningSEI, maximumAddedBytes: added
        ) { output, framing in
            liveCarryOver.reduce(0) { offset, nal in offset + framing.writeNAL(nal, to: output + offset) }
        }
        if output != packet { liveCarryOver.removeAll(keepingCapacity: true) }
        return output
    }

    /// Ends the chunk: signs what is not signed yet, waiting for it, and returns the held
    /// last frame with those SEIs in it (nil when no frame is held).
    func finishChunk() throws -> UnsafeMutablePointer<AVPacket>? {
        guard let last = held.packet else { return nil }
        if gopStartMicroseconds != nil { closeGOP(partial: true) }
        worker.waitUntilDone()
        collectSigned()
        let carried = pendingNALs.count
        liveCarryOver.append(contentsOf: pendingNALs)
        let output = try insertPending(into: last, certificate: false)
        // A frame with no slice took nothing: the SEIs stay pending, for live viewers too.
        if output == last { liveCarryOver.removeLast(carried) }
        held.release()
        return output
    }

    /// A chunk that ends without `finishChunk` (its file failed or vanished): the held frame is dropped.
    func abandonChunk() {
        held.release()
    }

    private func closeGOP(partial: Bool) {
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
                endTime: MediaSigningSEI.windowsTime(epochMicroseconds: gopEndMicroseconds), counter: counter, hashes: next))
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

    private func insertPending(into packet: UnsafeMutablePointer<AVPacket>, certificate: Bool) throws -> UnsafeMutablePointer<AVPacket> {
        guard certificate || !pendingNALs.isEmpty else { return packet }
        let added = (certificate ? 4 + certificateNAL.count : 0) + pendingNALs.reduce(0) { $0 + 4 + $1.count }
        let output = try inserter.inserting(
            into: packet, at: .beforeFirstSEIOrSlice, keptAhead: MediaSigningSEI.isSigningSEI, maximumAddedBytes: added
        ) { output, framing in
            var offset = certificate ? framing.writeNAL(certificateNAL, to: output) : 0
            for nal in pendingNALs { offset += framing.writeNAL(nal, to: output + offset) }
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
