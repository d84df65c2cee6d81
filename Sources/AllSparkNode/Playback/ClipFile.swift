import Foundation
import NIOCore
import NIOPosix

/// A finished clip, opened and at once unlinked: its bytes live exactly as long as this
/// descriptor, so the space comes back whether the response is sent whole, cut off by the
/// client, or never started.
final class ClipFile: Sendable {
    private let descriptor: Int32
    let size: Int64

    /// - Throws: when the file cannot be opened; it is removed either way.
    init(takingPath path: String) throws {
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        let code = errno
        unlink(path)
        guard opened >= 0 else { throw DurableFile.Failure(operation: "opening", path: path, code: code) }
        var info = stat()
        guard fstat(opened, &info) == 0 else {
            let code = errno
            close(opened)
            throw DurableFile.Failure(operation: "reading the size of", path: path, code: code)
        }
        descriptor = opened
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `maximumBytes` from `offset`, read on NIO's blocking-I/O pool.
    func piece(at offset: Int64, maximumBytes: Int) async throws -> ByteBuffer {
        let count = Int(min(Int64(maximumBytes), size - offset))
        return try await NIOThreadPool.singleton.runIfActive { try self.read(count: count, at: offset) }
    }

    private func read(count: Int, at offset: Int64) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
            while true {
                let result = pread(descriptor, bytes.baseAddress, count, off_t(offset))
                if result >= 0 { return result }
                if errno != EINTR { throw DurableFile.Failure(operation: "reading", path: "a clip", code: errno) }
            }
        }
        guard read > 0 else { throw DurableFile.Failure(operation: "reading", path: "a clip", code: EIO) }
        return buffer
    }
}
