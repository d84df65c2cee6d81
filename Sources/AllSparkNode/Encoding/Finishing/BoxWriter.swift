/// Builds boxes in memory, big-endian, with each box's size filled in when it closes.
struct BoxWriter {
    private(set) var bytes: [UInt8] = []

    mutating func box(_ type: String, _ body: (inout BoxWriter) throws -> Void) rethrows {
        let start = bytes.count
        append(UInt32(0))
        appendType(type)
        try body(&self)
        let size = UInt32(bytes.count - start)
        for index in 0..<4 { bytes[start + index] = UInt8(truncatingIfNeeded: size >> (24 - 8 * UInt32(index))) }
    }

    mutating func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout BoxWriter) throws -> Void) rethrows {
        try box(type) { writer in
            writer.append(UInt32(version) << 24 | flags & 0x00FF_FFFF)
            try body(&writer)
        }
    }

    mutating func appendType(_ type: String) {
        precondition(type.unicodeScalars.count == 4, "a box type is four characters")
        for scalar in type.unicodeScalars { bytes.append(UInt8(truncatingIfNeeded: scalar.value)) }
    }

    mutating func append(_ value: UInt32) { appendBigEndian(UInt64(value), bytes: 4) }
    mutating func append(_ value: UInt64) { appendBigEndian(value, bytes: 8) }
    mutating func append<Bytes: Sequence>(contentsOf other: Bytes) where Bytes.Element == UInt8 { bytes.append(contentsOf: other) }

    private mutating func appendBigEndian(_ value: UInt64, bytes count: Int) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
