import Crypto
import Foundation
import SwiftASN1
import X509

/// Who signs the node's footage: its signing key (`SigningKeyFile`) and the certificate
/// chain that names the key's public half. The chain is the operator's (`signing.certificate`,
/// leaf first, CA-signed) when configured, else a self-signed certificate the node makes once
/// and keeps beside the key (`.allspark-signing-certificate.pem`). The chain rides in the
/// footage; the key never leaves the store directory.
public struct MediaSigningIdentity: Sendable {
    public static let certificateFileName = ".allspark-signing-certificate.pem"
    /// Long: the certificate is checked against the footage's own time, not today's.
    static let validity: TimeInterval = 30 * 365 * 24 * 3600

    let key: P256.Signing.PrivateKey
    /// The chain in PEM, leaf first.
    public let certificatePEM: String
    /// SHA-256 of the leaf certificate's DER.
    public let fingerprint: String
    public let operatorProvided: Bool
    public let keyCreated: Bool
    /// The node's name, carried in the footage's vendor information.
    public let nodeName: String

    /// Loads the store's key (making it at first start) and its certificate.
    /// `configuredCertificate`: the operator's chain file, or empty for the self-signed one.
    public static func load(storeDirectory: String, configuredCertificate: String, nodeName: String) throws -> MediaSigningIdentity {
        let (key, created) = try SigningKeyFile(storeDirectory: storeDirectory).loadOrCreate()
        if !configuredCertificate.isEmpty {
            let pem: String
            do {
                pem = try String(contentsOfFile: configuredCertificate, encoding: .utf8)
            } catch {
                throw ConfigError.unreadableFile(path: configuredCertificate, reason: "\(error)")
            }
            let leaf: Certificate
            do {
                leaf = try Certificate(pemEncoded: pem)
            } catch {
                throw ConfigError.invalidValue(
                    key: "signing.certificate", value: configuredCertificate, allowed: "a PEM certificate chain, leaf first (\(error))")
            }
            guard leaf.publicKey == Certificate.PublicKey(key.publicKey) else {
                throw ConfigError.invalidValue(
                    key: "signing.certificate", value: configuredCertificate,
                    allowed: "a certificate for the public key of \(SigningKeyFile(storeDirectory: storeDirectory).path) (`allspark-node signing show` prints it)")
            }
            return MediaSigningIdentity(
                key: key, certificatePEM: pem, fingerprint: try leaf.sha256Fingerprint(), operatorProvided: true, keyCreated: created, nodeName: nodeName)
        }
        let file = SecretFile(directory: storeDirectory, name: certificateFileName)
        if let pem = try file.read(), let certificate = try? Certificate(pemEncoded: pem),
            certificate.publicKey == Certificate.PublicKey(key.publicKey)
        {
            return MediaSigningIdentity(
                key: key, certificatePEM: pem, fingerprint: try certificate.sha256Fingerprint(), operatorProvided: false, keyCreated: created, nodeName: nodeName)
        }
        // None yet, or one for a key that is gone: the certificate is public and made again from the key.
        let certificate = try selfSigned(key: key, nodeName: nodeName)
        let pem = try certificate.serializeAsPEM().pemString + "\n"
        try file.write(pem)
        return MediaSigningIdentity(
            key: key, certificatePEM: pem, fingerprint: try certificate.sha256Fingerprint(), operatorProvided: false, keyCreated: created, nodeName: nodeName)
    }

    private static func selfSigned(key: P256.Signing.PrivateKey, nodeName: String) throws -> Certificate {
        let name = try DistinguishedName {
            OrganizationName("AllSpark Node")
            CommonName("\(nodeName) media signing")
        }
        let now = Date()
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(validity),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: .init(key))
    }
}
