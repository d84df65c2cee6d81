/// The byte-level syntax every SEI NAL unit shares: payload numbers (type, size) and the
/// emulation prevention that keeps its bytes from forming a start code.
enum SEISyntax {
    /// SEI payload type and size: 0xFF bytes each add 255, the last byte adds itself.
    static func readNumber(_ bytes: [UInt8], _ position: inout Int) -> Int? {
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
    static func unescaped(_ bytes: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
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

    /// Writes a payload type or size: 0xFF for every whole 255, then the rest.
    static func writeNumber(_ value: Int, to writer: inout EmulationPreventingWriter) {
        var rest = value
        while rest >= 0xFF {
            writer.put(0xFF)
            rest -= 0xFF
        }
        writer.put(UInt8(rest))
    }
}

/// Writes NAL unit bytes, inserting 0x03 wherever two zero bytes would be followed by a byte
/// of 3 or less (which a reader would take for a start code or an escape).
struct EmulationPreventingWriter {
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
