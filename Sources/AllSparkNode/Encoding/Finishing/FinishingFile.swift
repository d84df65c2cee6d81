import Foundation

/// The part file opened for finishing in place (or only read, as replay reads the chunk
/// being written): positioned reads and writes and syncs, each failing with the operation
/// and the system's reason.
final class FinishingFile {
    let path: String
    private let descriptor: Int32

    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        descriptor = open(path, (readOnly ? O_RDONLY : O_RDWR) | O_CLOEXEC)
        guard descriptor >= 0 else { throw FinishingError(path: path, reason: "opening: \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    func size() throws -> UInt64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("reading its size") }
        return UInt64(info.st_size)
    }

    /// Exactly `count` bytes at `offset`; fails at the end of the file.
    func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if result < 0, errno == EINTR { continue }
            guard result >= 0 else { throw failure("reading \(count) bytes at \(offset)") }
            guard result > 0 else { throw FinishingError(path: path, reason: "the file ends inside a box at \(offset)") }
            done += result
        }
        return bytes
    }

    func write(_ bytes: [UInt8], at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { throw failure("writing \(bytes.count) bytes at \(offset)") }
            done += result
        }
    }

    func truncate(to size: UInt64) throws {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw failure("truncating to \(size) bytes") }
    }

    func sync() throws {
        guard fdatasync(descriptor) == 0 else { throw failure("syncing") }
    }

    private func failure(_ operation: String) -> FinishingError {
        FinishingError(path: path, reason: "\(operation): \(String(cString: strerror(errno)))")
    }
}
