import Crypto
import Foundation
import SwiftASN1
import X509

/// `server.tls: auto`: a self-signed certificate made once and kept with the access token
/// in the store directory, so the node serves https and wss without hand-made files. Its
/// SHA-256 fingerprint is logged at every start for clients to pin.
public struct SelfSignedCertificate: Sendable {
    public static let certificateFileName = ".allspark-tls-certificate.pem"
    public static let keyFileName = ".allspark-tls-key.pem"
    /// Ten years: a node runs unattended; the fingerprint, not the dates, is what is trusted.
    static let validity: TimeInterval = 10 * 365 * 24 * 3600

    public let certificatePath: String
    public let keyPath: String
    /// SHA-256 of the certificate's DER bytes, as colon-separated upper-case hex (the form browsers and openssl show).
    public let fingerprint: String
    public let created: Bool

    /// Loads the certificate kept in `storeDirectory`, making it first when there is none.
    public static func loadOrCreate(storeDirectory: String, hostName: String) throws -> SelfSignedCertificate {
        let certificateFile = SecretFile(directory: storeDirectory, name: certificateFileName)
        let keyFile = SecretFile(directory: storeDirectory, name: keyFileName)
        var created = false
        if try certificateFile.read() == nil || keyFile.read() == nil {
            let key = P256.Signing.PrivateKey()
            let certificate = try make(key: key, hostName: hostName)
            try keyFile.write(key.pemRepresentation + "\n")
            try certificateFile.write(try certificate.serializeAsPEM().pemString + "\n")
            created = true
        }
        let pem = try certificateFile.read() ?? ""
        let certificate = try Certificate(pemEncoded: pem)
        let fingerprint = try certificate.sha256Fingerprint()
        return SelfSignedCertificate(certificatePath: certificateFile.path, keyPath: keyFile.path, fingerprint: fingerprint, created: created)
    }

    private static func make(key: P256.Signing.PrivateKey, hostName: String) throws -> Certificate {
        let name = try DistinguishedName {
            OrganizationName("AllSpark Node")
            CommonName(hostName)
        }
        let now = Date()
        var alternativeNames: [GeneralName] = [.dnsName(hostName), .dnsName("localhost")]
        if !hostName.hasSuffix(".local") { alternativeNames.append(.dnsName(hostName + ".local")) }
        alternativeNames.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(alternativeNames)
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(validity),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: .init(key))
    }
}
