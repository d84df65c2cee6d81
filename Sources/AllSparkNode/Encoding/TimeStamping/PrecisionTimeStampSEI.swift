/// The MISB ST 0604 Precision Time Stamp as an H.264 SEI NAL unit: user data unregistered
/// (payload type 5) with UUID `MISPmicrosectime`, a status byte, and the microseconds since
/// 1970 in four 2-byte pieces with 0xFF between them (so the time itself cannot form a start
/// code); the NAL unit's own emulation prevention applies on top.
enum PrecisionTimeStampSEI {
    static let identifier: [UInt8] = Array("MISPmicrosectime".utf8)
    /// Status: bits 4–0 reserved (1); bit 7 set when the clock is not locked to a time source.
    static let lockedStatus: UInt8 = 0x1F
    static let unlockedStatus: UInt8 = 0x9F
    /// The NAL unit with every emulation prevention byte it could need.
    static let maximumNALBytes = 48
    private static let userDataUnregistered: UInt8 = 5
    private static let payloadBytes: UInt8 = 28

    /// Writes the SEI NAL unit (header byte first, no start code or length) to `output`,
    /// which has room for `maximumNALBytes`; returns its length.
    static func writeNAL(epochMicroseconds: Int64, status: UInt8, to output: UnsafeMutablePointer<UInt8>) -> Int {
        var writer = EmulationPreventingWriter(output: output)
        output[0] = 0x06  // nal_ref_idc 0, nal_unit_type 6 (SEI)
        writer.count = 1
        writer.put(userDataUnregistered)
        writer.put(payloadBytes)
        for byte in identifier { writer.put(byte) }
        writer.put(status)
        let time = UInt64(bitPattern: epochMicroseconds)
        for piece in 0..<4 {
            if piece > 0 { writer.put(0xFF) }
            writer.put(UInt8(truncatingIfNeeded: time >> UInt64(56 - 16 * piece)))
            writer.put(UInt8(truncatingIfNeeded: time >> UInt64(48 - 16 * piece)))
        }
        writer.put(0x80)  // rbsp_trailing_bits
        return writer.count
    }

    /// The time stamp in an SEI NAL unit's bytes (header byte first, escaped), or nil when it
    /// carries none.
    static func read(nal: UnsafeRawBufferPointer) -> Int64? {
        guard nal.count > 1, nal[0] & 0x1F == 6 else { return nil }
        let payload = unescaped(nal.dropFirst())
        var position = 0
        // Messages follow each other up to the last byte, the RBSP trailing bits.
        while position + 1 < payload.count {
            guard let type = readSEINumber(payload, &position), let size = readSEINumber(payload, &position),
                position + size <= payload.count
            else { return nil }
            if type == Int(userDataUnregistered), size >= Int(payloadBytes),
                payload[position..<position + 16].elementsEqual(identifier)
            {
                return time(in: payload[position + 17..<position + 28])
            }
            position += size
        }
        return nil
    }

    /// ST 0604's modified time stamp: 8 time bytes with 0xFF after the 2nd, 4th and 6th.
    private static func time(in bytes: ArraySlice<UInt8>) -> Int64? {
        let start = bytes.startIndex
        guard bytes[start + 2] == 0xFF, bytes[start + 5] == 0xFF, bytes[start + 8] == 0xFF else { return nil }
        var value: UInt64 = 0
        for (index, byte) in bytes.enumerated() where index % 3 != 2 { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }

    /// SEI payload type and size: 0xFF bytes each add 255, the last byte adds itself.
    private static func readSEINumber(_ bytes: [UInt8], _ position: inout Int) -> Int? {
        var value = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            value += Int(byte)
            if byte != 0xFF { return value }
        }
        return nil
    }

    /// The RBSP: every 0x03 that follows two zero bytes removed.
    private static func unescaped(_ bytes: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            result.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return result
    }
}

/// Writes NAL unit bytes, inserting 0x03 wherever two zero bytes would be followed by a byte
/// of 3 or less (which a reader would take for a start code or an escape).
private struct EmulationPreventingWriter {
    let output: UnsafeMutablePointer<UInt8>
    var count = 0
    private var zeros = 0

    init(output: UnsafeMutablePointer<UInt8>) { self.output = output }

    mutating func put(_ byte: UInt8) {
        if zeros >= 2, byte <= 3 {
            output[count] = 3
            count += 1
            zeros = 0
        }
        output[count] = byte
        count += 1
        zeros = byte == 0 ? zeros + 1 : 0
    }
}
