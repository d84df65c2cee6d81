import Foundation

/// An access key pair for an S3-compatible store. Read from the standard environment
/// variables or from a file in the AWS shared-credentials format; never logged, and its
/// description names only the key id.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public let accessKeyId: String
    let secretAccessKey: String
    /// Set with temporary credentials (AWS_SESSION_TOKEN); sent as x-amz-security-token.
    let sessionToken: String?

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "access key \(accessKeyId)" }

    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// From `file` when one is named (profile `default`, or AWS_PROFILE), else from
    /// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
    public static func load(file: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> S3Credentials {
        if !file.isEmpty {
            return try fromSharedFile(file, profile: environment["AWS_PROFILE"] ?? "default")
        }
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else {
            throw Missing(description: "the archive needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or archive.credentialsFile")
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return S3Credentials(accessKeyId: id, secretAccessKey: secret, sessionToken: token)
    }

    /// `[profile]` sections of `key = value` lines, as the AWS CLI writes them.
    static func fromSharedFile(_ path: String, profile: String) throws -> S3Credentials {
        guard let text = try? TextFile.read(path) else {
            throw Missing(description: "cannot read the archive credentials file \(path)")
        }
        var section = ""
        var values: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard section == profile, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        guard let id = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] else {
            throw Missing(description: "the archive credentials file \(path) has no aws_access_key_id and aws_secret_access_key under [\(profile)]")
        }
        return S3Credentials(accessKeyId: id, secretAccessKey: secret, sessionToken: values["aws_session_token"])
    }
}
