import Crypto
import Foundation
import SwiftASN1
import X509

/// A signing certificate with the certificates that issued it, up to the trust anchor: the
/// signing certificate first, any intermediates, the anchor (a self-signed CA) last. The
/// footage carries all but the anchor, which a validator is given separately (ONVIF's
/// reference validator refuses a chain that holds its own anchor, and a self-signed signing
/// certificate). Made only through `init(pem:for:)`, which checks every link.
public struct SigningChain: Sendable {
    public let certificates: [Certificate]

    public var signingCertificate: Certificate { certificates[0] }
    public var anchor: Certificate { certificates[certificates.count - 1] }

    /// Why a chain cannot be used; says what to do.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses `pem` and checks that it is a chain the node can sign under: at least the
    /// signing certificate and its anchor, the first certificate for `key` (when given) and
    /// usable for signatures, each one issued (and signed) by the next, every issuer a CA,
    /// the last one self-signed, and all of them valid at `now`.
    public init(pem: String, for key: P256.Signing.PublicKey?, now: Date = Date()) throws {
        let certificates = try Self.certificates(inPEM: pem)
        guard certificates.count >= 2 else {
            throw Problem(
                description: certificates.isEmpty
                    ? "no certificate in it"
                    : "it holds one certificate; it needs the signing certificate first and the CA certificate that issued it (the trust anchor) last")
        }
        if let key, certificates[0].publicKey != Certificate.PublicKey(key) {
            throw Problem(description: "its first certificate is for another key than this node's signing key (`allspark-node signing request` makes a request for the right one)")
        }
        if let usage = try? certificates[0].extensions.keyUsage, !usage.digitalSignature {
            throw Problem(description: "its first certificate's key usage does not allow digital signatures")
        }
        for (certificate, issuer) in zip(certificates, certificates.dropFirst()) {
            guard certificate.issuer == issuer.subject, issuer.publicKey.isValidSignature(certificate.signature, for: certificate) else {
                throw Problem(description: "\(certificate.subject) is not issued by the certificate after it (\(issuer.subject)): give the chain in order, signing certificate first, trust anchor last")
            }
            guard Self.isAuthority(issuer) else {
                throw Problem(description: "\(issuer.subject) issues a certificate but is not a CA (basic constraints CA:TRUE and key usage keyCertSign)")
            }
        }
        let anchor = certificates[certificates.count - 1]
        guard anchor.issuer == anchor.subject, anchor.publicKey.isValidSignature(anchor.signature, for: anchor) else {
            throw Problem(description: "its last certificate (\(anchor.subject)) is not self-signed: end the chain with the trust anchor, the root CA")
        }
        for certificate in certificates where !(certificate.notValidBefore...certificate.notValidAfter).contains(now) {
            throw Problem(description: "\(certificate.subject) is valid only from \(certificate.notValidBefore) to \(certificate.notValidAfter)")
        }
        self.certificates = certificates
    }

    /// Every certificate in PEM text, in order.
    public static func certificates(inPEM pem: String) throws -> [Certificate] {
        do {
            return try PEMDocument.parseMultiple(pemString: pem)
                .filter { $0.discriminator == "CERTIFICATE" }
                .map { try Certificate(derEncoded: $0.derBytes) }
        } catch {
            throw Problem(description: "it does not read as PEM certificates (\(error))")
        }
    }

    static func isAuthority(_ certificate: Certificate) -> Bool {
        guard case .isCertificateAuthority? = try? certificate.extensions.basicConstraints else { return false }
        if let usage = try? certificate.extensions.keyUsage { return usage.keyCertSign }
        return true
    }

    /// The whole chain in PEM, signing certificate first, anchor last.
    public var pem: String { Self.pem(certificates[...]) }
    /// What the footage carries: every certificate but the anchor.
    public var pemWithoutAnchor: String { Self.pem(certificates.dropLast()) }

    /// Certificates in PEM, in the order given.
    public static func pem(_ certificates: some Sequence<Certificate>) -> String {
        // Serializing a certificate that was parsed or made cannot fail.
        certificates.map { try! $0.serializeAsPEM().pemString + "\n" }.joined()
    }
}
