import Crypto
import Foundation
import Hummingbird

/// HTTP credentials for what ONVIF clients fetch with a user and password (the snapshot
/// URI): Digest (RFC 7616, MD5, qop=auth) or Basic with the ONVIF user and the access token
/// as password, or the node's bearer token. Wrong credentials go through the node's
/// limiter; a request with none (a Digest client's first, asking for the challenge) does not.
/// Digest nonces are made statelessly: the time they were made and an HMAC of it under a
/// key of this process, good for `nonceLifetimeMs`.
final class HTTPCredentialCheck: Sendable {
    static let realm = "AllSpark Node"
    static let nonceLifetimeMs: Int64 = 5 * 60 * 1000

    let user: String
    let policy: AccessPolicy
    private let key = SymmetricKey(size: .bits256)

    init(user: String, policy: AccessPolicy) {
        self.user = user
        self.policy = policy
    }

    func challenges(nowMs: Int64 = WallClock.nowMs()) -> [String] {
        ["Digest realm=\"\(Self.realm)\", qop=\"auth\", algorithm=MD5, nonce=\"\(nonce(nowMs: nowMs))\"", "Basic realm=\"\(Self.realm)\""]
    }

    func decide(request: Request, address: String, nowMs: Int64 = WallClock.nowMs()) -> AccessPolicy.Decision {
        decide(authorization: request.headers[.authorization], method: request.method.rawValue, address: address, nowMs: nowMs)
    }

    func decide(authorization: String?, method: String, address: String, nowMs: Int64 = WallClock.nowMs()) -> AccessPolicy.Decision {
        guard policy.requiresToken else { return .allowed(generation: 0) }
        guard let authorization else { return .unauthorized }
        if authorization.hasPrefix("Bearer ") {
            return policy.decide(offered: String(authorization.dropFirst("Bearer ".count)), scope: .api, address: address, nowMs: nowMs)
        }
        if authorization.hasPrefix("Basic ") {
            guard let decoded = Data(base64Encoded: String(authorization.dropFirst("Basic ".count))),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { return policy.decide(address: address, nowMs: nowMs) { _ in false } }
            let (givenUser, givenPassword) = (String(text[..<colon]), String(text[text.index(after: colon)...]))
            return policy.decide(address: address, nowMs: nowMs) { password in
                AccessPolicy.sameSecret(givenUser, self.user) && AccessPolicy.sameSecret(givenPassword, password)
            }
        }
        if authorization.hasPrefix("Digest ") {
            let fields = Self.parameters(String(authorization.dropFirst("Digest ".count)))
            // A stale nonce is no guess at the password: answered with a fresh challenge, not counted.
            guard let nonce = fields["nonce"], isFresh(nonce, nowMs: nowMs) else { return .unauthorized }
            return policy.decide(address: address, nowMs: nowMs) { password in
                guard let response = fields["response"], AccessPolicy.sameSecret(fields["username"] ?? "", self.user) else { return false }
                return AccessPolicy.sameSecret(response.lowercased(), Self.digestResponse(fields, method: method, user: self.user, password: password))
            }
        }
        return policy.decide(address: address, nowMs: nowMs) { _ in false }
    }

    /// RFC 7616's response: MD5(HA1:nonce[:nc:cnonce:qop]:HA2), HA1 = MD5(user:realm:password), HA2 = MD5(method:uri).
    static func digestResponse(_ fields: [String: String], method: String, user: String, password: String) -> String {
        let ha1 = md5Hex("\(user):\(fields["realm"] ?? realm):\(password)")
        let ha2 = md5Hex("\(method):\(fields["uri"] ?? "")")
        let nonce = fields["nonce"] ?? ""
        if let qop = fields["qop"], !qop.isEmpty {
            return md5Hex("\(ha1):\(nonce):\(fields["nc"] ?? ""):\(fields["cnonce"] ?? ""):\(qop):\(ha2)")
        }
        return md5Hex("\(ha1):\(nonce):\(ha2)")
    }

    static func md5Hex(_ text: String) -> String {
        Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    func nonce(nowMs: Int64) -> String {
        let stamp = String(nowMs)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(stamp.utf8), using: key)
        return stamp + "-" + Data(mac).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    func isFresh(_ nonce: String, nowMs: Int64) -> Bool {
        let parts = nonce.split(separator: "-")
        guard parts.count == 2, let made = Int64(parts[0]), nowMs - made >= -1000, nowMs - made <= Self.nonceLifetimeMs else { return false }
        return AccessPolicy.sameSecret(nonce, self.nonce(nowMs: made))
    }

    /// `key=value, key="quoted, value"` pairs, keys lowercased.
    static func parameters(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { value.append(character); escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { break } else { value.append(character) }
                }
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if result.count < 32 { result[key] = value }
        }
        return result
    }
}
