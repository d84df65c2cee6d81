/// The few pieces of protobuf's wire format that `OnnxFreeImageSize` needs to rewrite an
/// ONNX model: walking a message's fields and writing length-delimited ones back.
enum ProtobufWire {
    struct Field {
        let number: UInt64
        let wireType: UInt64
        /// The whole field, tag included, as it lies in the message.
        let bytes: Range<Int>
        /// A length-delimited field's contents (a submessage, a string); empty otherwise.
        let payload: Range<Int>

        var isLengthDelimited: Bool { wireType == 2 }
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// The fields of the message in `bytes[range]`, in order.
    static func fields(of bytes: [UInt8], in range: Range<Int>) throws(Malformed) -> [Field] {
        var fields: [Field] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            let start = offset
            let tag = try varint(in: bytes, at: &offset, end: range.upperBound)
            let number = tag >> 3
            let wireType = tag & 7
            guard number > 0 else { throw Malformed(description: "field number 0 at byte \(start)") }
            var payload = offset..<offset
            switch wireType {
            case 0: _ = try varint(in: bytes, at: &offset, end: range.upperBound)
            case 1: offset = try advance(offset, by: 8, end: range.upperBound)
            case 5: offset = try advance(offset, by: 4, end: range.upperBound)
            case 2:
                let length = try varint(in: bytes, at: &offset, end: range.upperBound)
                guard length <= UInt64(range.upperBound - offset) else {
                    throw Malformed(description: "a field at byte \(start) runs past its message")
                }
                payload = offset..<(offset + Int(length))
                offset = payload.upperBound
            default: throw Malformed(description: "wire type \(wireType) at byte \(start)")
            }
            fields.append(Field(number: number, wireType: wireType, bytes: start..<offset, payload: payload))
        }
        return fields
    }

    /// Appends a length-delimited field `number` holding `payload`.
    static func appendField(_ number: UInt64, payload: [UInt8], to out: inout [UInt8]) {
        appendVarint(number << 3 | 2, to: &out)
        appendVarint(UInt64(payload.count), to: &out)
        out.append(contentsOf: payload)
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    private static func varint(in bytes: [UInt8], at offset: inout Int, end: Int) throws(Malformed) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: UInt64(0), to: 64, by: 7) {
            guard offset < end else { throw Malformed(description: "a number runs past its message at byte \(offset)") }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
        }
        throw Malformed(description: "a number longer than 10 bytes at byte \(offset)")
    }

    private static func advance(_ offset: Int, by count: Int, end: Int) throws(Malformed) -> Int {
        guard end - offset >= count else { throw Malformed(description: "a fixed-size field runs past its message at byte \(offset)") }
        return offset + count
    }
}
