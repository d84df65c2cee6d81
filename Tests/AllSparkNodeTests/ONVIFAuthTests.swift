import Crypto
import Foundation
import Testing
@testable import AllSparkNode

/// WS-Security UsernameToken digests and HTTP Digest for the snapshot.
struct ONVIFAuthTests {
    static let created = "2026-12-07T04:00:00Z"
    static let nowMs = UsernameTokenCheck.parseTime(created)!

    static func token(password: String, nonce: Data = Data("0123456789abcdef".utf8), created: String = Self.created, user: String = "admin") -> UsernameToken {
        UsernameToken(
            username: user, password: UsernameTokenCheck.digest(nonce: nonce, created: created, password: password),
            passwordType: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest",
            nonce: nonce.base64EncodedString(), created: created)
    }

    @Test("the digest is Base64(SHA1(nonce + Created + password)), as the spec's example")
    func digestFormula() {
        // WS-Security UsernameToken Profile 1.0's own example values.
        let nonce = Data(base64Encoded: "LKqI6G/AikKCQrN0zqZFlg==")!
        #expect(UsernameTokenCheck.digest(nonce: nonce, created: "2010-09-16T07:50:45Z", password: "userpassword") == "tuOSpGlFlIXsozq4HFNeeGeFLEI=")
    }

    @Test("a right digest passes once; a replayed nonce, a wrong password or user, and a Created outside ±5 min fail")
    func checks() {
        let check = UsernameTokenCheck(user: "admin")
        #expect(check.check(Self.token(password: "secret"), password: "secret", nowMs: Self.nowMs) == .valid)
        #expect(check.check(Self.token(password: "secret"), password: "secret", nowMs: Self.nowMs + 1000) == .replayed)
        #expect(check.check(Self.token(password: "wrong", nonce: Data("other".utf8)), password: "secret", nowMs: Self.nowMs) == .invalid)
        #expect(check.check(Self.token(password: "secret", nonce: Data("n2".utf8), user: "root"), password: "secret", nowMs: Self.nowMs) == .invalid)
        #expect(check.check(Self.token(password: "secret", nonce: Data("n3".utf8)), password: "secret", nowMs: Self.nowMs + 6 * 60_000) == .outsideWindow)
        // `+00:00` and fractions are read; the digest covers the string exactly as sent.
        let offset = "2026-12-07T04:00:00.250+00:00"
        #expect(check.check(Self.token(password: "secret", nonce: Data("n4".utf8), created: offset), password: "secret", nowMs: Self.nowMs) == .valid)
        var altered = Self.token(password: "secret", nonce: Data("n5".utf8), created: offset)
        altered.created = "2026-12-07T04:00:00.25Z"
        #expect(check.check(altered, password: "secret", nowMs: Self.nowMs) == .invalid)
    }

    @Test("HTTP Digest (RFC 7616 qop=auth) and Basic with the ONVIF user; a stale or forged nonce is refused")
    func httpDigest() {
        let policy = AccessPolicy(requiresToken: true, token: "tok", metricsToken: "", tokenFile: nil)
        let check = HTTPCredentialCheck(user: "admin", policy: policy)
        let nonce = check.nonce(nowMs: Self.nowMs)
        var fields = ["username": "admin", "realm": HTTPCredentialCheck.realm, "nonce": nonce, "uri": "/onvif/snapshot.jpg", "qop": "auth", "nc": "00000001", "cnonce": "c1"]
        fields["response"] = HTTPCredentialCheck.digestResponse(fields, method: "GET", user: "admin", password: "tok")
        let header = "Digest " + fields.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ", ")
        #expect(check.decide(authorization: header, method: "GET", address: "a", nowMs: Self.nowMs) == .allowed(generation: 0))
        #expect(check.decide(authorization: header, method: "GET", address: "a", nowMs: Self.nowMs + 10 * 60_000) == .unauthorized)
        #expect(check.decide(authorization: header.replacingOccurrences(of: nonce, with: "1-00"), method: "GET", address: "a", nowMs: Self.nowMs) == .unauthorized)
        #expect(check.decide(authorization: header, method: "POST", address: "a", nowMs: Self.nowMs) == .unauthorized)
        let basic = "Basic " + Data("admin:tok".utf8).base64EncodedString()
        #expect(check.decide(authorization: basic, method: "GET", address: "b", nowMs: Self.nowMs) == .allowed(generation: 0))
        #expect(check.decide(authorization: "Basic " + Data("admin:no".utf8).base64EncodedString(), method: "GET", address: "b", nowMs: Self.nowMs) == .unauthorized)
        #expect(check.decide(authorization: "Bearer tok", method: "GET", address: "c", nowMs: Self.nowMs) == .allowed(generation: 0))
        #expect(check.decide(authorization: nil, method: "GET", address: "c", nowMs: Self.nowMs) == .unauthorized)
        #expect(HTTPCredentialCheck.parameters(#"a="x, \"y\"", b=2,c="3""#) == ["a": "x, \"y\"", "b": "2", "c": "3"])
    }
}
