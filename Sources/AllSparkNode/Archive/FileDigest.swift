import Crypto
import NIOCore
import _NIOFileSystem

/// SHA-256 of a file read once from an open handle, and of each of its parts when it is
/// to be sent in parts: S3 checks every body against the hash it was signed with, and the
/// manifest and object metadata carry the whole file's hash for later verification.
struct FileDigest: Sendable, Equatable {
    let size: Int64
    let sha256: String
    /// One per part of `partBytes` (the last may be shorter); empty when not split.
    let partSHA256: [String]

    static let readBytes: ByteCount = .kibibytes(256)

    static func of(_ handle: ReadFileHandle, size: Int64, partBytes: Int64? = nil) async throws -> FileDigest {
        var whole = SHA256()
        var part = SHA256()
        var partFilled: Int64 = 0
        var parts: [String] = []
        var read: Int64 = 0
        for try await piece in handle.readChunks(in: 0..<size, chunkLength: readBytes) {
            piece.withUnsafeReadableBytes { whole.update(bufferPointer: $0) }
            read += Int64(piece.readableBytes)
            guard let partBytes else { continue }
            var offset = 0
            while offset < piece.readableBytes {
                let take = min(Int(partBytes - partFilled), piece.readableBytes - offset)
                piece.withUnsafeReadableBytes { part.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + take])) }
                offset += take
                partFilled += Int64(take)
                if partFilled == partBytes {
                    parts.append(hex(part.finalize()))
                    part = SHA256()
                    partFilled = 0
                }
            }
        }
        guard read == size else { throw ShortRead(expected: size, read: read) }
        if partFilled > 0 { parts.append(hex(part.finalize())) }
        return FileDigest(size: size, sha256: hex(whole.finalize()), partSHA256: partBytes == nil ? [] : parts)
    }

    struct ShortRead: Error, CustomStringConvertible {
        let expected: Int64
        let read: Int64
        var description: String { "the file ended after \(read) of its \(expected) bytes" }
    }

    static func sha256Hex(of bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

    private static let digits = Array("0123456789abcdef".utf8)

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
