import Crypto
import Foundation
import X509

/// The trust anchor a node makes for itself at first start, when no operator's CA issued
/// its signing certificate: a CA whose only act is to issue the certificate for the node's
/// signing key. Its private key is thrown away right after, so nobody who takes the node's
/// disk can issue another certificate under the anchor, and the anchor's key never signs
/// footage. Losing the chain file means a new anchor (footage signed before keeps verifying
/// against the old one).
enum NodeSigningAuthority {
    /// Certificates are checked against the footage's time as well as today's: long lives.
    static let anchorValidity: TimeInterval = 40 * 365 * 24 * 3600
    static let signingValidity: TimeInterval = 30 * 365 * 24 * 3600

    static func issueChain(for key: P256.Signing.PrivateKey, nodeName: String, now: Date = Date()) throws -> SigningChain {
        let authorityKey = P256.Signing.PrivateKey()
        let authorityPublicKey = Certificate.PublicKey(authorityKey.publicKey)
        let authorityName = try DistinguishedName {
            OrganizationName("AllSpark Node")
            CommonName("\(nodeName) media signing CA")
        }
        let notBefore = now.addingTimeInterval(-3600)
        let anchor = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: authorityPublicKey,
            notValidBefore: notBefore, notValidAfter: now.addingTimeInterval(anchorValidity),
            issuer: authorityName, subject: authorityName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: authorityPublicKey)
            },
            issuerPrivateKey: .init(authorityKey))
        let signingPublicKey = Certificate.PublicKey(key.publicKey)
        let signing = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signingPublicKey,
            notValidBefore: notBefore, notValidAfter: now.addingTimeInterval(signingValidity),
            issuer: authorityName,
            subject: try DistinguishedName {
                OrganizationName("AllSpark Node")
                CommonName("\(nodeName) media signing")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(hash: signingPublicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: authorityPublicKey).keyIdentifier)
            },
            issuerPrivateKey: .init(authorityKey))
        return try SigningChain(pem: SigningChain.pem([signing, anchor]), for: key.publicKey, now: now)
    }
}
