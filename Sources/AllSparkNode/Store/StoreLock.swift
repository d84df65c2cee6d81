import Foundation

/// An exclusive lock on a store directory, so two nodes never evict each other's chunks.
/// The kernel releases it when the process dies, so a crash leaves no stale lock.
final class StoreLock: Sendable {
    static let fileName = ".allspark-node.lock"
    private let descriptor: Int32

    struct Held: Error, CustomStringConvertible {
        let directory: String
        var description: String { "store \(directory) is in use by another allspark-node process" }
    }

    init(directory: URL) throws {
        let path = directory.appendingPathComponent(Self.fileName).path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw Held(directory: directory.path)
        }
    }

    deinit { close(descriptor) }
}
