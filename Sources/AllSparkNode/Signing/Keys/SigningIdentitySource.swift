import Foundation
import Logging
import Synchronization

/// The node's signing identity as the recorder and the API get it. It is loaded at start;
/// when the store cannot take the key or chain files yet (a full disk at first start) the
/// node runs on, records nothing (there is no room anyway) and says why, and the files are
/// made as soon as a chunk could be written. A key file that is there but wrong, or a chain
/// that does not fit, stops the node at start instead.
public final class SigningIdentitySource: Sendable {
    private enum State {
        case loaded(MediaSigningIdentity)
        case waiting(reason: String)
    }

    private let storeDirectory: String
    private let configuredCertificate: String
    private let nodeName: String
    private let logger: Logger
    private let state: Mutex<State>

    /// Loads the identity now. - Throws: what `MediaSigningIdentity.load` throws but a file
    /// that cannot be written yet.
    public init(storeDirectory: String, configuredCertificate: String, nodeName: String, logger: Logger) throws {
        self.storeDirectory = storeDirectory
        self.configuredCertificate = configuredCertificate
        self.nodeName = nodeName
        self.logger = logger
        do {
            let identity = try MediaSigningIdentity.load(storeDirectory: storeDirectory, configuredCertificate: configuredCertificate, nodeName: nodeName)
            state = Mutex(.loaded(identity))
            Self.logLoaded(identity, storeDirectory: storeDirectory, logger: logger)
        } catch let failure as DurableFile.Failure {
            state = Mutex(.waiting(reason: "\(failure)"))
            logger.error("the media signing key cannot be made yet (\(failure)); nothing is recorded until it can be, which is tried whenever the store could take a chunk")
        }
    }

    /// The identity, or nil while its files cannot be written yet.
    public var identity: MediaSigningIdentity? {
        state.withLock { if case .loaded(let identity) = $0 { identity } else { nil } }
    }

    /// Why there is no identity yet, if there is none.
    public var waitingReason: String? {
        state.withLock { if case .waiting(let reason) = $0 { reason } else { nil } }
    }

    /// The identity, making its files now if they could not be made before.
    /// - Throws: why they still cannot be.
    func current() throws -> MediaSigningIdentity {
        if let identity { return identity }
        do {
            let identity = try MediaSigningIdentity.load(storeDirectory: storeDirectory, configuredCertificate: configuredCertificate, nodeName: nodeName)
            state.withLock { $0 = .loaded(identity) }
            Self.logLoaded(identity, storeDirectory: storeDirectory, logger: logger)
            return identity
        } catch {
            state.withLock { $0 = .waiting(reason: "\(error)") }
            throw error
        }
    }

    private static func logLoaded(_ identity: MediaSigningIdentity, storeDirectory: String, logger: Logger) {
        let chain: String
        switch identity.chainSource {
        case .own: chain = "a certificate from its own anchor"
        case .installed: chain = "the installed certificate chain"
        case .configured(let path): chain = "the certificate chain \(path)"
        }
        logger.notice(
            "signing footage with \(identity.keyCreated ? "a new" : "the") key \(SigningKeyFile(storeDirectory: storeDirectory).path) and \(chain); signing certificate SHA-256 \(identity.fingerprint), trust anchor \(identity.chain.anchor.subject) SHA-256 \(identity.anchorFingerprint)")
    }
}
