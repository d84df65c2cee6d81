import Foundation

/// Small POSIX file operations with the errors and syncs the store needs.
enum DurableFile {
    struct Failure: Error, CustomStringConvertible {
        let operation: String
        let path: String
        let code: Int32
        var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
        var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }
    }

    /// Writes `text` to a new file with permissions `mode` and syncs it; returns its size.
    static func write(_ text: String, to path: String, mode: mode_t = 0o644) throws -> Int64 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw Failure(operation: "creating", path: path, code: errno) }
        defer { close(descriptor) }
        // A file left over with wider permissions keeps them through O_CREAT; narrow them first.
        guard fchmod(descriptor, mode) == 0 else { throw Failure(operation: "setting permissions of", path: path, code: errno) }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                let code = errno
                unlink(path)
                throw Failure(operation: "writing", path: path, code: code)
            }
            offset += written
        }
        bytes.removeAll()
        guard fdatasync(descriptor) == 0 else {
            let code = errno
            unlink(path)
            throw Failure(operation: "syncing", path: path, code: code)
        }
        return Int64(offset)
    }

    static func rename(_ source: String, to target: String) throws {
        guard Foundation.rename(source, target) == 0 else { throw Failure(operation: "renaming to", path: target, code: errno) }
    }

    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Size in bytes, 0 when the file does not exist.
    static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Bytes an unprivileged writer may still add to the file system holding `path`.
    static func availableBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
