/// ONVIF Media Signing's SEI as the reference implementation (onvif/media-signing-framework
/// r25.12.3) writes it, where the spec (`doc/MediaSigning.xml` in onvif/specs) leaves room:
/// an H.264 user data unregistered SEI with UUID 005bc93f-2d71-5e95-ada4-796f90877a6f, a
/// reserved byte, TLVs (1-byte tag, 2-byte big-endian length) and the signature TLV last.
/// The signed "document" is the NAL unit from its header byte up to the signature TLV,
/// before emulation prevention (the reserved byte's bit 6 stays 0 to say so).
enum MediaSigningSEI {
    static let uuid: [UInt8] = [0x00, 0x5B, 0xC9, 0x3F, 0x2D, 0x71, 0x5E, 0x95, 0xAD, 0xA4, 0x79, 0x6F, 0x90, 0x87, 0x7A, 0x6F]
    /// Reserved byte bit 7: the SEI carries what is sent once (the certificate), not a GOP.
    static let sentOnceFlag: UInt8 = 0x80

    enum Tag: UInt8 {
        case general = 1
        case hashList = 2
        case signature = 3
        case cryptoInfo = 4
        case vendorInfo = 5
        case certificates = 6
    }

    /// SHA-256 for NAL unit hashes and for the document's digest.
    static let hashBytes = 32
    /// An ECDSA P-256 signature in DER is at most 72 bytes; the tag's room is fixed so the
    /// SEI's size is known before signing.
    static let signatureRoom = 72
    /// The signature TLV: tag, length, version, 2-byte size, room.
    static let signatureTLVBytes = 3 + 1 + 2 + signatureRoom
    /// DER of OID 2.16.840.1.101.3.4.2.1 (SHA-256).
    static let sha256OID: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    /// The version of ONVIF Media Signing the general tag says the footage follows (the
    /// reference implementation's release whose format it is: r25.12.3). Validators judge
    /// compatibility by it.
    static let signerVersion: [UInt8] = [25, 12, 3]
    /// The linked hash of the first signed GOP: there is no previous one (all zeros, as the
    /// reference validator expects at a stream's start).
    static let noLinkedHash = [UInt8](repeating: 0, count: hashBytes)

    /// 100-ns intervals since 1601-01-01 UTC (the spec's time unit) from Unix microseconds.
    static func windowsTime(epochMicroseconds: Int64) -> Int64 { epochMicroseconds * 10 + 116_444_736_000_000_000 }
    static func epochMs(windowsTime: Int64) -> Int64 { (windowsTime - 116_444_736_000_000_000) / 10_000 }

    /// What one GOP's (or partial GOP's) SEI says.
    struct GOPInfo: Equatable, Sendable {
        /// Closed by the length limit rather than by the next GOP's IDR.
        var partial: Bool
        /// The GOP's first frame's capture time.
        var startTime: Int64
        /// The next GOP's first frame's capture time (exclusive end).
        var endTime: Int64
        var counter: UInt32
        var nalCount: Int
        /// SHA-256 over the hash list.
        var gopHash: [UInt8]
        /// The first hash of the previous (partial) GOP's hash list.
        var linkedHash: [UInt8]
    }

    // MARK: Writing

    static func generalTLV(_ info: GOPInfo) -> [UInt8] {
        var value: [UInt8] = [2] + signerVersion + [info.partial ? 1 : 0]
        value.appendBigEndian(UInt64(bitPattern: info.startTime), bytes: 8)
        value.appendBigEndian(UInt64(bitPattern: info.endTime), bytes: 8)
        value.appendBigEndian(UInt64(info.counter), bytes: 4)
        value.appendBigEndian(UInt64(info.nalCount), bytes: 2)
        return tlv(.general, value + info.gopHash + info.linkedHash)
    }

    static func hashListTLV(_ hashes: [UInt8]) -> [UInt8] { tlv(.hashList, [1] + hashes) }

    /// Version, hash algorithm OID; no signing algorithm OID and RSA size 0 (an EC key says its own).
    static let cryptoInfoTLV: [UInt8] = tlv(.cryptoInfo, [1, UInt8(sha256OID.count)] + sha256OID + [0, 0, 0])

    static func vendorInfoTLV(firmware: String, serial: String, manufacturer: String) -> [UInt8] {
        var value: [UInt8] = [1]
        for text in [firmware, serial, manufacturer] {
            let bytes = Array(text.utf8.prefix(255))
            value.append(UInt8(bytes.count))
            value += bytes
        }
        return tlv(.vendorInfo, value)
    }

    /// The chain without its trust anchor (the signing certificate first), as PEM text.
    /// The "user provisioned" byte stays 0: the node's key is the device's own, whoever
    /// issued its certificate.
    static func certificatesTLV(pem: String) -> [UInt8] {
        tlv(.certificates, [1, 0] + Array(pem.utf8))
    }

    /// The document: NAL header, payload type and size (counting the signature TLV still
    /// to come), UUID, reserved byte and `tlvs`; unescaped.
    static func document(reserved: UInt8, tlvs: [UInt8]) -> [UInt8] {
        let payloadSize = uuid.count + 1 + tlvs.count + signatureTLVBytes
        var bytes: [UInt8] = [0x06, 0x05]
        var rest = payloadSize
        while rest >= 0xFF {
            bytes.append(0xFF)
            rest -= 0xFF
        }
        bytes.append(UInt8(rest))
        return bytes + uuid + [reserved] + tlvs
    }

    /// The whole NAL unit, escaped: `document`, the signature TLV and the stop bit.
    static func nal(document: [UInt8], signature: [UInt8]) -> [UInt8] {
        precondition(signature.count <= signatureRoom)
        var raw = document
        raw.reserveCapacity(document.count + signatureTLVBytes + 1)
        raw += [Tag.signature.rawValue]
        raw.appendBigEndian(UInt64(1 + 2 + signatureRoom), bytes: 2)
        raw.append(1)
        raw.appendBigEndian(UInt64(signature.count), bytes: 2)
        raw += signature
        // Unused room is 0x01, which never needs an emulation prevention byte.
        raw += [UInt8](repeating: 1, count: signatureRoom - signature.count)
        raw.append(0x80)
        return escaped(raw)
    }

    /// The most bytes an escaped NAL unit of `rawBytes` can take.
    static func maximumEscapedBytes(rawBytes: Int) -> Int { rawBytes + rawBytes / 2 + 1 }

    /// The raw size of a GOP SEI over `nalCount` NAL units.
    static func gopSEIRawBytes(nalCount: Int) -> Int {
        let tlvs = (3 + 1 + 3 + 1 + 8 + 8 + 4 + 2 + 2 * hashBytes) + (3 + 1 + nalCount * hashBytes)
        let payload = uuid.count + 1 + tlvs + signatureTLVBytes
        return 2 + payload / 0xFF + 1 + payload + 1
    }

    private static func tlv(_ tag: Tag, _ value: [UInt8]) -> [UInt8] {
        var bytes = [tag.rawValue]
        bytes.appendBigEndian(UInt64(value.count), bytes: 2)
        return bytes + value
    }

    private static func escaped(_ raw: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: maximumEscapedBytes(rawBytes: raw.count))
        let count = output.withUnsafeMutableBufferPointer { buffer in
            var writer = EmulationPreventingWriter(output: buffer.baseAddress!)
            for byte in raw { writer.put(byte) }
            return writer.count
        }
        output.removeLast(output.count - count)
        return output
    }

    // MARK: Reading

    /// A signing SEI as read back: its TLV values by tag, the document bytes its signature
    /// covers, and the signature.
    struct Parsed {
        let reserved: UInt8
        let values: [Tag: ArraySlice<UInt8>]
        let document: ArraySlice<UInt8>
        let signature: [UInt8]

        var isSentOnce: Bool { reserved & MediaSigningSEI.sentOnceFlag != 0 }

        /// The general TLV: version 2 (the reference's r25.12 format, with the end time) or
        /// version 1 (earlier signers: the start time only).
        var gopInfo: GOPInfo? {
            guard let value = values[.general], let version = value.first, version == 1 || version == 2 else { return nil }
            let timeBytes = version == 2 ? 16 : 8
            let fixed = 1 + 3 + 1 + timeBytes + 4 + 2
            guard value.count >= fixed + 2 * MediaSigningSEI.hashBytes, (value.count - fixed) % 2 == 0 else { return nil }
            let start = value.startIndex
            let half = (value.count - fixed) / 2
            let startTime = Int64(bitPattern: value.bigEndian(at: start + 5, bytes: 8))
            let counterAt = start + 5 + timeBytes
            return GOPInfo(
                partial: value[start + 4] != 0,
                startTime: startTime,
                endTime: version == 2 ? Int64(bitPattern: value.bigEndian(at: start + 13, bytes: 8)) : startTime,
                counter: UInt32(value.bigEndian(at: counterAt, bytes: 4)),
                nalCount: Int(value.bigEndian(at: counterAt + 4, bytes: 2)),
                gopHash: Array(value[start + fixed..<start + fixed + half]),
                linkedHash: Array(value[start + fixed + half..<value.endIndex]))
        }

        var hashList: ArraySlice<UInt8>? {
            guard let value = values[.hashList], value.first == 1 else { return nil }
            return value.dropFirst()
        }

        var certificatePEM: String? {
            guard let value = values[.certificates], value.count > 2, value.first == 1 else { return nil }
            return String(decoding: value.dropFirst(2), as: UTF8.self)
        }
    }

    /// Whether a NAL unit (header first, escaped) is a signing SEI, from its first bytes,
    /// without copying: the frame path asks it. Nothing up to the UUID's end can hold an
    /// emulation prevention byte (no 00 00 there is followed by a byte below 4).
    static func isSigningSEI(_ nal: UnsafeRawBufferPointer) -> Bool {
        guard nal.count > 2, nal[0] & 0x1F == 6, nal[1] == 5 else { return false }
        var position = 2
        while position < nal.count, nal[position] == 0xFF { position += 1 }
        position += 1
        return position + uuid.count <= nal.count && nal[position..<position + uuid.count].elementsEqual(uuid)
    }

    /// Calls `body` with each SEI ahead of the picture in an access unit that is not a
    /// signing SEI (the time stamp): what is repeated behind signing SEIs put behind a
    /// picture, because GStreamer's h264parse hands on an access unit's last SEI first.
    static func forEachOtherSEIAheadOfPicture(in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        H264Framing.of(bytes).forEachNAL(in: bytes) { _, nal in
            guard let header = nal.first, !H264Framing.isSlice(header) else { return false }
            if header & 0x1F == 6, !isSigningSEI(nal) { body(nal) }
            return true
        }
    }

    /// The signing SEI in a NAL unit (header first, escaped), or nil when it is not one.
    static func parse(nal: UnsafeRawBufferPointer) -> Parsed? {
        guard nal.count > 20, nal[0] & 0x1F == 6 else { return nil }
        // The reference signer writes its SEIs without emulation prevention unless asked to:
        // a NAL unit exactly as long as its declared payload (and the stop bit) has none,
        // and its 00 00 03 bytes are data (the reference validator decides the same way).
        // Type and size come first and hold no 00 bytes (a size takes up to 257 bytes).
        let head = Array(nal.prefix(260))
        var headPosition = 1
        let declared = SEISyntax.readNumber(head, &headPosition).flatMap { _ in SEISyntax.readNumber(head, &headPosition) }
        let unescapedLength = declared.map { headPosition + $0 + 1 }
        let raw = unescapedLength == nal.count || unescapedLength == nal.count + 1
            ? Array(nal) : [nal[0]] + SEISyntax.unescaped(nal.dropFirst())
        var position = 1
        guard SEISyntax.readNumber(raw, &position) == 5, let size = SEISyntax.readNumber(raw, &position),
            position + size <= raw.count, size > uuid.count + 1,
            raw[position..<position + uuid.count].elementsEqual(uuid)
        else { return nil }
        let reserved = raw[position + uuid.count]
        var cursor = position + uuid.count + 1
        let end = position + size
        var values: [Tag: ArraySlice<UInt8>] = [:]
        while cursor + 3 <= end {
            let tagStart = cursor
            let length = Int(raw[cursor + 1]) << 8 | Int(raw[cursor + 2])
            cursor += 3
            guard cursor + length <= end else { return nil }
            let value = raw[cursor..<cursor + length]
            cursor += length
            guard let tag = Tag(rawValue: raw[tagStart]) else { continue }
            if tag == .signature {
                guard value.count >= 3 else { return nil }
                let signatureSize = Int(value.bigEndian(at: value.startIndex + 1, bytes: 2))
                guard signatureSize <= value.count - 3 else { return nil }
                let signature = Array(value[value.startIndex + 3..<value.startIndex + 3 + signatureSize])
                return Parsed(reserved: reserved, values: values, document: raw[0..<tagStart], signature: signature)
            }
            values[tag] = value
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt64, bytes: Int) {
        for index in (0..<bytes).reversed() { append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }
}

extension ArraySlice where Element == UInt8 {
    func bigEndian(at index: Int, bytes: Int) -> UInt64 {
        self[index..<index + bytes].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
