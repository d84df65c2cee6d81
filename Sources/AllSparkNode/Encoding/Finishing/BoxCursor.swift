/// Reads big-endian fields of one box's payload, failing with the box's name when the
/// payload is shorter than its fields say.
struct BoxCursor {
    private let bytes: [UInt8]
    private(set) var position: Int
    private let end: Int
    let boxType: String

    init(_ bytes: [UInt8], boxType: String, range: Range<Int>? = nil) {
        self.bytes = bytes
        self.boxType = boxType
        position = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    var remaining: Int { end - position }

    struct Truncated: Error, CustomStringConvertible {
        let boxType: String
        var description: String { "the \(boxType) box is shorter than its fields" }
    }

    mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw Truncated(boxType: boxType) }
        position += count
    }

    mutating func uint32() throws -> UInt32 { UInt32(try unsigned(bytes: 4)) }
    mutating func uint64() throws -> UInt64 { try unsigned(bytes: 8) }

    /// A full box's version and flags.
    mutating func versionAndFlags() throws -> (version: UInt8, flags: UInt32) {
        let word = try uint32()
        return (UInt8(word >> 24), word & 0x00FF_FFFF)
    }

    mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw Truncated(boxType: boxType) }
        defer { position += count }
        return bytes[position..<position + count]
    }

    private mutating func unsigned(bytes count: Int) throws -> UInt64 {
        guard count <= remaining else { throw Truncated(boxType: boxType) }
        var value: UInt64 = 0
        for index in position..<position + count { value = value << 8 | UInt64(bytes[index]) }
        position += count
        return value
    }
}

/// One box inside a payload already in memory: where its payload lies in that buffer.
struct ChildBox {
    let type: String
    /// The whole box, header included.
    let range: Range<Int>
    let payload: Range<Int>

    /// The boxes directly inside `range` of `bytes`.
    static func children(of bytes: [UInt8], in range: Range<Int>, parent: String) throws -> [ChildBox] {
        var children: [ChildBox] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            var cursor = BoxCursor(bytes, boxType: parent, range: offset..<range.upperBound)
            let header = try BoxHeader.read(&cursor)
            guard header.size >= UInt64(header.headerBytes), header.size <= UInt64(range.upperBound - offset) else {
                throw BoxCursor.Truncated(boxType: parent)
            }
            let end = offset + Int(header.size)
            children.append(ChildBox(type: header.type, range: offset..<end, payload: offset + header.headerBytes..<end))
            offset = end
        }
        return children
    }
}

/// A box header: 32-bit size and type, or size 1 and a 64-bit size after the type.
struct BoxHeader {
    let type: String
    /// The whole box, header included; 0 means "to the end of the file".
    let size: UInt64
    let headerBytes: Int

    static func read(_ cursor: inout BoxCursor) throws -> BoxHeader {
        let shortSize = try cursor.uint32()
        let typeBytes = try cursor.take(4)
        let type = String(decoding: typeBytes, as: UTF8.self)
        if shortSize == 1 { return BoxHeader(type: type, size: try cursor.uint64(), headerBytes: 16) }
        return BoxHeader(type: type, size: UInt64(shortSize), headerBytes: 8)
    }
}
