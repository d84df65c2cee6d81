import Crypto
import Foundation
import Testing
import X509
@testable import AllSparkNode

/// The trust model ONVIF's validators accept: a trust anchor outside the footage that
/// issued the signing certificate, the node's own or an operator's CA.
struct SigningTrustTests {
    private func authority(_ name: String) throws -> (key: P256.Signing.PrivateKey, certificate: Certificate) {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-60), notValidAfter: Date().addingTimeInterval(86_400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key))
        return (key, certificate)
    }

    private func issue(for publicKey: P256.Signing.PublicKey, by authority: (key: P256.Signing.PrivateKey, certificate: Certificate)) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(publicKey),
            notValidBefore: Date().addingTimeInterval(-60), notValidAfter: Date().addingTimeInterval(86_400),
            issuer: authority.certificate.subject, subject: try DistinguishedName { CommonName("camera 7") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(KeyUsage(digitalSignature: true)) },
            issuerPrivateKey: .init(authority.key))
    }

    @Test("at first start the node makes its own anchor, a CA, which issued its signing certificate; the footage carries the signing certificate only and the anchor's key is not kept")
    func ownAnchor() throws {
        let store = try TestFiles.makeDirectory("trust-own")
        let identity = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "cam")
        let anchor = identity.chain.anchor
        let signing = identity.chain.signingCertificate
        #expect(identity.chainSource == .own && identity.chain.certificates.count == 2)
        #expect(SigningChain.isAuthority(anchor) && anchor.issuer == anchor.subject)
        #expect(signing.issuer == anchor.subject && anchor.publicKey.isValidSignature(signing.signature, for: signing))
        #expect(!SigningChain.isAuthority(signing) && signing.publicKey == Certificate.PublicKey(identity.key.publicKey))
        #expect(try signing.extensions.keyUsage?.digitalSignature == true)
        let carried = try SigningChain.certificates(inPEM: identity.chainWithoutAnchorPEM)
        #expect(carried == [signing], "the certificate SEI holds the signing certificate, not the anchor")
        // The store holds the signing key and the public chain: no other private key.
        let files = try FileManager.default.contentsOfDirectory(atPath: store.path).sorted()
        #expect(files == [MediaSigningIdentity.ownChainFileName, SigningKeyFile.fileName].sorted(), "\(files)")
        let again = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "cam")
        #expect(again.anchorFingerprint == identity.anchorFingerprint && again.fingerprint == identity.fingerprint)
    }

    @Test("an operator's CA chain installs when it is for this key and chains up to its anchor; anything else is refused with the reason")
    func operatorChain() throws {
        let store = try TestFiles.makeDirectory("trust-install")
        let own = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "cam")
        let fleet = try authority("Fleet CA")
        let leaf = try issue(for: own.key.publicKey, by: fleet)

        let onlyLeaf = #expect(throws: SigningChain.Problem.self) {
            try MediaSigningIdentity.install(chainPEM: SigningChain.pem([leaf]), storeDirectory: store.path)
        }
        #expect(onlyLeaf?.description.contains("trust anchor") == true)
        let foreign = try issue(for: P256.Signing.PrivateKey().publicKey, by: fleet)
        let otherKey = #expect(throws: SigningChain.Problem.self) {
            try MediaSigningIdentity.install(chainPEM: SigningChain.pem([foreign, fleet.certificate]), storeDirectory: store.path)
        }
        #expect(otherKey?.description.contains("another key") == true)
        let stranger = try authority("Another CA")
        let unlinked = #expect(throws: SigningChain.Problem.self) {
            try MediaSigningIdentity.install(chainPEM: SigningChain.pem([leaf, stranger.certificate]), storeDirectory: store.path)
        }
        #expect(unlinked?.description.contains("not issued by") == true)
        #expect(!FileManager.default.fileExists(atPath: store.appendingPathComponent(MediaSigningIdentity.installedChainFileName).path))

        let installed = try MediaSigningIdentity.install(chainPEM: SigningChain.pem([leaf, fleet.certificate]), storeDirectory: store.path)
        #expect(installed.anchor == fleet.certificate)
        let identity = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "cam")
        #expect(identity.chainSource == .installed && identity.operatorProvided && identity.chain.anchor == fleet.certificate)
        #expect(identity.fingerprint != own.fingerprint && identity.key.publicKey.rawRepresentation == own.key.publicKey.rawRepresentation)
    }

    @Test("the trust check names the anchor a chain reaches among several, through an intermediate, and refuses anchors that did not issue it")
    func trustCheck() throws {
        let root = try authority("Root CA")
        let intermediateKey = P256.Signing.PrivateKey()
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: Date().addingTimeInterval(-60), notValidAfter: Date().addingTimeInterval(86_400),
            issuer: root.certificate.subject, subject: try DistinguishedName { CommonName("Site CA") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(root.key))
        let leaf = try issue(for: P256.Signing.PrivateKey().publicKey, by: (intermediateKey, intermediate))
        let unrelated = try authority("Unrelated CA")
        guard case .anchor(let found) = TrustCheck.check(chain: [leaf, intermediate], trusted: [unrelated.certificate, root.certificate], at: Date()) else {
            Issue.record("the chain reaches the root")
            return
        }
        #expect(found == root.certificate)
        guard case .untrusted(let reason) = TrustCheck.check(chain: [leaf, intermediate], trusted: [unrelated.certificate], at: Date()) else {
            Issue.record("an unrelated anchor vouches for nothing")
            return
        }
        #expect(reason.contains("Unrelated CA"))
        guard case .untrusted = TrustCheck.check(chain: [leaf, intermediate], trusted: [root.certificate], at: Date().addingTimeInterval(10 * 86_400)) else {
            Issue.record("certificates that had expired when the footage was signed vouch for nothing")
            return
        }
        guard case .signingCertificate = TrustCheck.check(chain: [leaf], trusted: [leaf], at: Date()) else {
            Issue.record("the signing certificate itself is trusted when given")
            return
        }
    }
}
