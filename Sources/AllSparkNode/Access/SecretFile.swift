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
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func write(_ text: String) throws {
        let temporary = path + ".new"
        _ = try DurableFile.write(text, to: temporary, mode: 0o600)
        try DurableFile.rename(temporary, to: path)
        DurableFile.syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Permission bits, for checks and tests.
    var mode: mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }
}
