import Crypto
import Foundation
@testable import AllSparkNode

/// PEM handed to `signing install` and `verify --certificate`, or carried in footage.
enum CertificateTargets {
    static let certificateChain = FuzzTarget(name: "certificate-chain", parses: "PEM certificate chains") { bytes in
        let pem = FuzzInput.text(bytes)
        guard let certificates = try? SigningChain.certificates(inPEM: pem), !certificates.isEmpty else { return }
        _ = certificates.map(SigningChain.isAuthority)
        _ = try? SigningChain(pem: pem, for: nil, now: fixedNow)
    }

    /// `signing install`: a chain checked against the node's own key, as the command does.
    static let signingInstall = FuzzTarget(name: "signing-install", parses: "chains given to `signing install`") { bytes in
        _ = try? SigningChain(pem: FuzzInput.text(bytes), for: nodeKey.publicKey, now: fixedNow)
    }

    /// A fixed time and key, so an input's outcome never depends on when it runs.
    private static let fixedNow = Date(timeIntervalSince1970: 1_780_000_000)
    private static let nodeKey = P256.Signing.PrivateKey()
}
