import Foundation

/// A failed S3 request: what was asked, and what the store answered (its error code and
/// message, from the XML error body) or why it could not be reached.
public struct S3Error: Error, CustomStringConvertible, Sendable {
    public let operation: String
    /// The HTTP status, nil when no answer came.
    public let status: Int?
    /// The store's error code (`NoSuchBucket`, `SignatureDoesNotMatch`, ...).
    public let code: String?
    public let detail: String

    public var description: String {
        guard let status else { return "\(operation): \(detail)" }
        return "\(operation): \(status) \(code ?? "")\(detail.isEmpty ? "" : " (\(detail))")"
    }

    /// Whether the failure is the settings' (wrong credentials, a missing bucket) rather than
    /// the network's or the store's health. Both are retried (an operator may fix either);
    /// status pages say which it is.
    public var isConfigurationProblem: Bool {
        guard let code else { return status == 403 }
        return ["NoSuchBucket", "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "AuthorizationHeaderMalformed"].contains(code)
    }

    /// The object (or multipart upload) asked for does not exist; the bucket does.
    public var isMissingObject: Bool { code == "NoSuchKey" || code == "NoSuchUpload" }

    static func unreachable(_ operation: String, _ error: any Error) -> S3Error {
        S3Error(operation: operation, status: nil, code: nil, detail: "\(error)")
    }

    static func answered(_ operation: String, status: Int, body: String) -> S3Error {
        S3Error(
            operation: operation, status: status, code: S3XML.firstValue(of: "Code", in: body),
            detail: S3XML.firstValue(of: "Message", in: body) ?? "")
    }
}
