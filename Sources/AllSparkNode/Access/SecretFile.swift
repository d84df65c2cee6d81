import Foundation

/// A small secret (the access token, the TLS key) in the store directory: readable and
/// writable by the node's user only (0600), replaced atomically so a reader never sees half.
struct SecretFile: Sendable {
    let path: String

    init(directory: String, name: String) {
        path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
    }

    /// The file's text, or nil when it does not exist.
    func read() throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try TextFile.read(path)
    }

    func write(_ text: String) throws {
        let temporary = path + ".new"
        _ = try DurableFile.write(text, to: temporary, mode: 0o600)
        try giveToStoreOwner(temporary)
        try DurableFile.rename(temporary, to: path)
        DurableFile.syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Root writing into a service's store (`allspark-node token --rotate` on an installed
    /// node) hands the file to the store's owner, or the service could not read its own secret.
    private func giveToStoreOwner(_ file: String) throws {
        guard geteuid() == 0 else { return }
        var directory = stat()
        guard stat(URL(fileURLWithPath: path).deletingLastPathComponent().path, &directory) == 0, directory.st_uid != 0 else { return }
        guard chown(file, directory.st_uid, directory.st_gid) == 0 else {
            throw DurableFile.Failure(operation: "handing to the store's owner", path: file, code: errno)
        }
    }

    /// Permission bits, for checks and tests.
    var mode: mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }
}
