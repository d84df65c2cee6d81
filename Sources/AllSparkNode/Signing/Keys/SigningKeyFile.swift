import Crypto
import Foundation

/// The node's media signing key: ECDSA P-256, PEM (PKCS#8), made at first start and kept
/// beside the access token in the store directory (`.allspark-signing-key.pem`, mode 0600).
/// A key file that is there but not 0600, or does not read as a key, stops the node: a
/// silently new key would make the node's footage look like another node's.
public struct SigningKeyFile: Sendable {
    public static let fileName = ".allspark-signing-key.pem"

    let file: SecretFile

    public init(storeDirectory: String) {
        file = SecretFile(directory: storeDirectory, name: Self.fileName)
    }

    public var path: String { file.path }

    /// Why the key cannot be used; says which file and what to do.
    public struct Problem: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String {
            "media signing key \(path): \(reason). The node will not make a new key in its place (footage signed with it would no longer match this node's certificate); fix or restore the file, or remove it to start a new identity"
        }
    }

    /// The stored key, made and stored first when there is none. `created` says which.
    public func loadOrCreate() throws -> (key: P256.Signing.PrivateKey, created: Bool) {
        if let key = try load() { return (key, false) }
        let key = P256.Signing.PrivateKey()
        try file.write(key.pemRepresentation + "\n")
        return (key, true)
    }

    /// The stored key, or nil when there is no file.
    public func load() throws -> P256.Signing.PrivateKey? {
        guard let mode = file.mode else { return nil }
        guard mode == 0o600 else {
            throw Problem(path: path, reason: "its mode is \(String(mode, radix: 8)), not 600 (readable by the node's user only)")
        }
        let text: String
        do {
            text = try file.read() ?? ""
        } catch {
            throw Problem(path: path, reason: "it cannot be read (\(error))")
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: text)
        } catch {
            throw Problem(path: path, reason: "it is torn or is not an ECDSA P-256 private key in PEM")
        }
    }
}
