import Foundation

/// The token the node makes for itself when none is configured, kept beside the runtime
/// config in the store directory (`.allspark-token`, mode 0600). `allspark-node token`
/// prints it and `--rotate` replaces it; a running node notices within a second.
public struct AccessTokenFile: Sendable {
    public static let fileName = ".allspark-token"
    /// 32 random bytes: 256 bits, well over the 128 a guess would have to beat.
    static let randomBytes = 32

    let file: SecretFile

    public init(storeDirectory: String) {
        file = SecretFile(directory: storeDirectory, name: Self.fileName)
    }

    public var path: String { file.path }

    /// The stored token, or nil when there is none yet (or the file holds no token).
    public func read() throws -> String? {
        guard let text = try file.read()?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// The stored token, made and stored first when there is none. `created` says which.
    public func readOrCreate() throws -> (token: String, created: Bool) {
        if let token = try read() { return (token, false) }
        return (try rotate(), true)
    }

    /// Stores `token` (one made while the store had no room for it).
    func store(_ token: String) throws {
        try file.write(token + "\n")
    }

    /// Stores a new random token in place of the old one and returns it.
    @discardableResult
    public func rotate() throws -> String {
        let token = Self.makeToken()
        try file.write(token + "\n")
        return token
    }

    /// URL-safe base64 of bytes from the system's cryptographic generator (getrandom).
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<randomBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public var mode: mode_t? { file.mode }
}
