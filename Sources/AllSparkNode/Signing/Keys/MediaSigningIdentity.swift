import Crypto
import Foundation
import X509

/// Who signs the node's footage: its signing key (`SigningKeyFile`) and the chain that
/// certifies the key up to a trust anchor. The chain is, first found: the file
/// `signing.certificate` names; the one `allspark-node signing install` put in the store
/// (an operator's CA, one anchor for a fleet); else the node's own, made once by
/// `NodeSigningAuthority` and kept beside the key. The footage carries the chain without
/// its anchor; the key never leaves the store directory.
public struct MediaSigningIdentity: Sendable {
    /// The node's own chain (signing certificate, its own anchor).
    public static let ownChainFileName = ".allspark-signing-chain.pem"
    /// A chain an operator's CA issued, installed with `allspark-node signing install`.
    public static let installedChainFileName = ".allspark-signing-installed-chain.pem"

    public enum ChainSource: Sendable, Equatable {
        /// The node's own anchor.
        case own
        /// Installed into the store by `signing install`.
        case installed
        /// The file `signing.certificate` names.
        case configured(path: String)
    }

    let key: P256.Signing.PrivateKey
    public let chain: SigningChain
    public let chainSource: ChainSource
    public let keyCreated: Bool
    /// The node's name, carried in the footage's vendor information.
    public let nodeName: String

    public var operatorProvided: Bool { chainSource != .own }
    /// SHA-256 of the signing certificate's DER.
    public var fingerprint: String { (try? chain.signingCertificate.sha256Fingerprint()) ?? "" }
    public var anchorFingerprint: String { (try? chain.anchor.sha256Fingerprint()) ?? "" }
    /// The trust anchor alone, in PEM: what a validator is given.
    public var anchorPEM: String { SigningChain.pem([chain.anchor]) }
    /// What the certificate SEI carries.
    var chainWithoutAnchorPEM: String { chain.pemWithoutAnchor }

    /// Loads the store's key and chain, making the key and the node's own chain when there
    /// are none. `configuredCertificate`: the operator's chain file, or empty.
    /// - Throws: `SigningKeyFile.Problem` for a key file that is there but unusable,
    ///   `ConfigError` for a configured chain that is wrong, `DurableFile.Failure` when a
    ///   file that must be made cannot be written (a full disk: try again later).
    public static func load(storeDirectory: String, configuredCertificate: String, nodeName: String) throws -> MediaSigningIdentity {
        let (key, created) = try SigningKeyFile(storeDirectory: storeDirectory).loadOrCreate()
        if !configuredCertificate.isEmpty {
            let pem: String
            do {
                pem = try String(contentsOfFile: configuredCertificate, encoding: .utf8)
            } catch {
                throw ConfigError.unreadableFile(path: configuredCertificate, reason: "\(error)")
            }
            do {
                let chain = try SigningChain(pem: pem, for: key.publicKey)
                return MediaSigningIdentity(key: key, chain: chain, chainSource: .configured(path: configuredCertificate), keyCreated: created, nodeName: nodeName)
            } catch let problem as SigningChain.Problem {
                throw ConfigError.invalidValue(
                    key: "signing.certificate", value: configuredCertificate,
                    allowed: "a PEM chain for the key of \(SigningKeyFile(storeDirectory: storeDirectory).path): the signing certificate first, its trust anchor last (\(problem))")
            }
        }
        let installed = SecretFile(directory: storeDirectory, name: installedChainFileName)
        if let pem = try installed.read() {
            do {
                let chain = try SigningChain(pem: pem, for: key.publicKey)
                return MediaSigningIdentity(key: key, chain: chain, chainSource: .installed, keyCreated: created, nodeName: nodeName)
            } catch let problem as SigningChain.Problem {
                throw SigningChain.Problem(description: "the installed chain \(installed.path) cannot be used: \(problem); install another with `allspark-node signing install`, or remove it to sign under the node's own anchor")
            }
        }
        let own = SecretFile(directory: storeDirectory, name: ownChainFileName)
        // A chain for a key that is gone, or one that no longer checks out, is made again: it is public.
        if let pem = try own.read(), let chain = try? SigningChain(pem: pem, for: key.publicKey) {
            return MediaSigningIdentity(key: key, chain: chain, chainSource: .own, keyCreated: created, nodeName: nodeName)
        }
        let chain = try NodeSigningAuthority.issueChain(for: key, nodeName: nodeName)
        try own.write(chain.pem)
        return MediaSigningIdentity(key: key, chain: chain, chainSource: .own, keyCreated: created, nodeName: nodeName)
    }

    /// Checks `pem` as a chain for the store's key and installs it (`signing install`).
    public static func install(chainPEM pem: String, storeDirectory: String) throws -> SigningChain {
        guard let key = try SigningKeyFile(storeDirectory: storeDirectory).load() else {
            throw SigningChain.Problem(description: "there is no signing key in \(storeDirectory) yet (`allspark-node signing request` makes one)")
        }
        let chain = try SigningChain(pem: pem, for: key.publicKey)
        try SecretFile(directory: storeDirectory, name: installedChainFileName).write(chain.pem)
        return chain
    }
}
