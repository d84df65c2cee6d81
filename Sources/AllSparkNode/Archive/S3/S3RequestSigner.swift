import Crypto
import Foundation

/// AWS Signature Version 4 for S3 requests, header-signed: the canonical request, the
/// string to sign and the derived signing key, with swift-crypto's SHA-256 and HMAC.
struct S3RequestSigner: Sendable {
    let credentials: S3Credentials
    let region: String
    static let service = "s3"
    static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256`, the session
    /// token when there is one, and `authorization`.
    /// - Parameters:
    ///   - path: the URI path, already encoded with `encodePath`.
    ///   - headers: every other header that is sent and must be signed (`host` included).
    func signedHeaders(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadSHA256: String, date: Date
    ) -> [(String, String)] {
        let (amzDate, day) = Self.timestamps(date)
        var signed = headers.map { ($0.0.lowercased(), $0.1.trimmingCharacters(in: .whitespaces)) }
        signed.append(("x-amz-date", amzDate))
        signed.append(("x-amz-content-sha256", payloadSHA256))
        if let token = credentials.sessionToken { signed.append(("x-amz-security-token", token)) }
        signed.sort { $0.0 < $1.0 }
        let signedNames = signed.map(\.0).joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map { (Self.encode($0.0), Self.encode($0.1)) }
        let sortedQuery = encodedQuery.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let canonicalQuery = sortedQuery.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let canonicalRequest = [
            method, path, canonicalQuery,
            signed.map { "\($0.0):\($0.1)\n" }.joined(),
            signedNames, payloadSHA256,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(Self.service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, FileDigest.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        let signature = FileDigest.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day: day)))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyId)/\(scope), SignedHeaders=\(signedNames), Signature=\(signature)"
        return signed.filter { $0.0 != "host" } + [("authorization", authorization)]
    }

    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, Self.service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// `20130524T000000Z` and `20130524`, in UTC.
    static func timestamps(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let day = String(format: "%04d%02d%02d", parts.year!, parts.month!, parts.day!)
        return (day + String(format: "T%02d%02d%02dZ", parts.hour!, parts.minute!, parts.second!), day)
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters, as SigV4 asks.
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                result += "/"
            default:
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    static func encodePath(_ path: String) -> String { encode(path, keepingSlashes: true) }
}
