import Foundation

/// Serialises changes to a store's holds between processes: the node (API, eviction) and
/// `allspark-node hold` run while the node records. A change holds it exclusively from
/// reading the chunks to writing the file; the node's eviction holds it shared from reading
/// the holds to deleting, so no chunk is deleted on a list that a hold was just added to.
/// The kernel drops it when the process dies.
enum HoldsLock {
    static let fileName = ".allspark-holds.lock"

    static func withLock<T>(directory: URL, exclusive: Bool, _ body: () throws -> T) throws -> T {
        let path = directory.appendingPathComponent(fileName).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HoldError.writeFailed(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw HoldError.writeFailed(path: path, reason: "locking: \(String(cString: strerror(errno)))") }
        }
        return try body()
    }
}
