import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore

/// One file of a fetch: written as `<name>.part` and renamed when whole and checked, so an
/// interrupted fetch never leaves a file that looks complete, and a re-run resumes from the
/// bytes the part file holds (an HTTP Range request; a source that answers with the whole
/// file starts it over). Files are not synced to disk (a sync per file costs more than the
/// file on a busy disk); after a power cut a re-run checks every file's size, and its
/// SHA-256 where the archive has one, before it trusts it.
struct PartFile {
    let path: URL
    var partPath: URL { path.deletingLastPathComponent().appendingPathComponent(path.lastPathComponent + ".part") }

    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// Where the next bytes come from: an answer for the file from `offset` on, and whether
    /// the source honoured the offset (false: the whole file follows).
    typealias Opener = @Sendable (_ offset: Int64) async throws -> (body: HTTPClientResponse.Body, resumed: Bool)

    /// Fetches the file unless it is already whole: checks the size and, when given, the SHA-256.
    func fetch(size: Int64, sha256: String?, progress: FetchProgress, open: Opener) async throws {
        let manager = FileManager.default
        if let existing = try? manager.attributesOfItem(atPath: path.path)[.size] as? Int64, existing == size {
            guard let sha256 else { return }
            if (try? Self.sha256(of: path, upTo: size).hex) == sha256 { return }
        }
        var offset = (try? manager.attributesOfItem(atPath: partPath.path)[.size] as? Int64) ?? 0
        if offset > size { offset = 0 }
        if offset == 0 { manager.createFile(atPath: partPath.path, contents: nil) }
        var hash = offset > 0 && sha256 != nil ? try Self.sha256(of: partPath, upTo: offset).hasher : SHA256()
        let (body, resumed) = try await open(offset)
        let handle = try FileHandle(forWritingTo: partPath)
        defer { try? handle.close() }
        if resumed {
            try handle.seek(toOffset: UInt64(offset))
        } else {
            try handle.truncate(atOffset: 0)
            offset = 0
            hash = SHA256()
        }
        var written = offset
        for try await piece in body {
            guard written + Int64(piece.readableBytes) <= size else {
                throw Mismatch(description: "\(path.lastPathComponent): more bytes than the listed \(size)")
            }
            piece.withUnsafeReadableBytes { bytes in
                hash.update(bufferPointer: bytes)
                handle.write(Data(bytes))
            }
            written += Int64(piece.readableBytes)
            progress.add(bytes: Int64(piece.readableBytes))
        }
        guard written == size else {
            throw Mismatch(description: "\(path.lastPathComponent): \(written) of the listed \(size) bytes arrived")
        }
        if let sha256 {
            let digest = FileDigest.hex(hash.finalize())
            guard digest == sha256 else {
                try? manager.removeItem(at: partPath)
                throw Mismatch(description: "\(path.lastPathComponent): SHA-256 \(digest), the archive's manifest says \(sha256)")
            }
        }
        guard rename(partPath.path, path.path) == 0 else {
            throw Mismatch(description: "renaming \(partPath.lastPathComponent): \(String(cString: strerror(errno)))")
        }
    }

    /// The SHA-256 state of a file's first `length` bytes.
    private static func sha256(of url: URL, upTo length: Int64) throws -> (hasher: SHA256, hex: String) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hash = SHA256()
        var left = length
        while left > 0, let data = try handle.read(upToCount: Int(min(left, 1 << 20))), !data.isEmpty {
            hash.update(data: data)
            left -= Int64(data.count)
        }
        return (hash, FileDigest.hex(hash.finalize()))
    }
}
