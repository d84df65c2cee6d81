import Crypto
import Foundation
import X509

/// A certificate signing request (PKCS#10) for the node's signing key, for an operator's CA
/// to issue a certificate from (`allspark-node signing request`; openssl, step-ca or an
/// enterprise CA read it). Makes the key first when the store has none.
public enum SigningRequest {
    public static func pem(storeDirectory: String, nodeName: String) throws -> String {
        let (key, _) = try SigningKeyFile(storeDirectory: storeDirectory).loadOrCreate()
        let request = try CertificateSigningRequest(
            version: .v1,
            subject: try DistinguishedName {
                OrganizationName("AllSpark Node")
                CommonName("\(nodeName) media signing")
            },
            privateKey: .init(key),
            attributes: CertificateSigningRequest.Attributes(),
            signatureAlgorithm: .ecdsaWithSHA256)
        return try request.serializeAsPEM().pemString + "\n"
    }
}
