import Crypto
import Foundation
import SwiftASN1
import X509

extension Certificate {
    /// SHA-256 of the DER bytes, as colon-separated upper-case hex (the form browsers and openssl show).
    public func sha256Fingerprint() throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return SHA256.hash(data: Data(serializer.serializedBytes)).map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}
