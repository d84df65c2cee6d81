/// How an H.264 packet separates its NAL units: Annex B start codes (what libx264 and most
/// encoders give libavcodec) or 4-byte big-endian lengths (what MP4 and MOV store).
enum H264Framing {
    case annexB
    case lengthPrefixed

    /// Lengths that add up to the packet win over a leading start code: a stored packet
    /// whose first NAL unit is 256–511 bytes long (a signing SEI can be) begins 00 00 01.
    static func of(_ data: UnsafeRawBufferPointer) -> H264Framing {
        if data.count > 0, H264Framing.lengthPrefixed.forEachNAL(in: data, { _, _ in true }) { return .lengthPrefixed }
        if data.count >= 4, data[0] == 0, data[1] == 0, data[2] == 1 || (data[2] == 0 && data[3] == 1) { return .annexB }
        return .lengthPrefixed
    }

    /// Whether a NAL unit header byte is a coded slice (types 1–5): the picture itself.
    static func isSlice(_ header: UInt8) -> Bool { (1...5).contains(header & 0x1F) }

    /// Writes the 4 bytes that frame a NAL unit of `nalBytes`: the start code 00 00 00 01,
    /// or the NAL unit's big-endian length.
    func writePrefix(nalBytes: Int, to output: UnsafeMutablePointer<UInt8>) {
        let prefix = self == .annexB ? 1 : UInt32(nalBytes)
        for index in 0..<4 { output[index] = UInt8(truncatingIfNeeded: prefix >> (24 - 8 * UInt32(index))) }
    }

    /// Writes `nal` (escaped, header byte first) with its framing; returns the bytes written.
    func writeNAL(_ nal: [UInt8], to output: UnsafeMutablePointer<UInt8>) -> Int {
        nal.withUnsafeBytes { writeNAL($0, to: output) }
    }

    func writeNAL(_ nal: UnsafeRawBufferPointer, to output: UnsafeMutablePointer<UInt8>) -> Int {
        writePrefix(nalBytes: nal.count, to: output)
        if let base = nal.baseAddress { UnsafeMutableRawPointer(output + 4).copyMemory(from: base, byteCount: nal.count) }
        return 4 + nal.count
    }

    /// Calls `body` with each NAL unit's offset where its framing starts, and its bytes
    /// (header byte first), until `body` returns false. Returns false when the lengths do
    /// not add up to the packet.
    @discardableResult
    func forEachNAL(in data: UnsafeRawBufferPointer, _ body: (_ framingOffset: Int, _ nal: UnsafeRawBufferPointer) -> Bool) -> Bool {
        switch self {
        case .lengthPrefixed:
            var offset = 0
            while offset + 4 <= data.count {
                let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
                guard length > 0, offset + 4 + length <= data.count else { return false }
                if !body(offset, UnsafeRawBufferPointer(rebasing: data[offset + 4..<offset + 4 + length])) { return true }
                offset += 4 + length
            }
            return offset == data.count
        case .annexB:
            var start: (framing: Int, nal: Int)? = nil
            var index = 0
            while index + 3 <= data.count {
                guard data[index] == 0, data[index + 1] == 0, data[index + 2] == 1 else {
                    index += 1
                    continue
                }
                let framing = index > 0 && data[index - 1] == 0 ? index - 1 : index
                if let start, !body(start.framing, UnsafeRawBufferPointer(rebasing: data[start.nal..<framing])) { return true }
                start = (framing, index + 3)
                index += 3
            }
            if let start { _ = body(start.framing, UnsafeRawBufferPointer(rebasing: data[start.nal..<data.count])) }
            return true
        }
    }
}
