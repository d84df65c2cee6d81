import Foundation
import Testing
@testable import AllSparkNode

/// The access token, its file, the policy's decisions and the self-signed certificate.
struct AccessTests {
    @Test("the token file: made once with mode 0600, read back the same, replaced by rotate")
    func tokenFile() throws {
        let store = try TestFiles.makeDirectory("token")
        let file = AccessTokenFile(storeDirectory: store.path)
        let before = try file.read()
        #expect(before == nil)
        let (made, created) = try file.readOrCreate()
        #expect(created && file.mode == 0o600)
        #expect(made.count == 43 && made.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, "256 bits, URL-safe")
        let again = try file.readOrCreate()
        #expect(again.token == made && !again.created)
        let rotated = try file.rotate()
        let stored = try file.read()
        #expect(rotated != made && stored == rotated && file.mode == 0o600)
    }

    @Test("a token file left with wider permissions is narrowed when rewritten")
    func narrowsPermissions() throws {
        let store = try TestFiles.makeDirectory("token-mode")
        let file = AccessTokenFile(storeDirectory: store.path)
        _ = FileManager.default.createFile(atPath: file.path + ".new", contents: Data(), attributes: [.posixPermissions: 0o666])
        try file.rotate()
        #expect(file.mode == 0o600)
    }

    @Test("decisions: the right token passes, a wrong or missing one is refused, and 10 failures slow that address only")
    func decisions() {
        let policy = AccessPolicy(requiresToken: true, token: "right", metricsToken: "scrape", tokenFile: nil)
        #expect(policy.decide(offered: "right", scope: .api, address: "a", nowMs: 0) == .allowed(generation: 0))
        #expect(policy.decide(offered: nil, scope: .api, address: "a", nowMs: 0) == .unauthorized)
        #expect(policy.decide(offered: "scrape", scope: .api, address: "a", nowMs: 0) == .unauthorized)
        #expect(policy.decide(offered: "scrape", scope: .metrics, address: "a", nowMs: 0) == .allowed(generation: 0))
        for _ in 0..<8 { _ = policy.decide(offered: "guess", scope: .api, address: "a", nowMs: 1000) }
        #expect(policy.decide(offered: "right", scope: .api, address: "a", nowMs: 1000) == .throttled(retryAfterSeconds: 6))
        #expect(policy.decide(offered: "right", scope: .api, address: "b", nowMs: 1000) == .allowed(generation: 0))
        // One attempt comes back every 6 s.
        #expect(policy.decide(offered: "right", scope: .api, address: "a", nowMs: 7000) == .allowed(generation: 0))
        #expect(AccessPolicy.open.decide(offered: nil, scope: .metrics, address: "a") == .allowed(generation: 0))
    }

    @Test("a rotated token file is taken up with a new generation; the old token is refused")
    func rotation() throws {
        let store = try TestFiles.makeDirectory("token-rotation")
        let file = AccessTokenFile(storeDirectory: store.path)
        let old = try file.readOrCreate().token
        let policy = AccessPolicy(requiresToken: true, token: old, metricsToken: "", tokenFile: file)
        let unchanged = try policy.reloadToken()
        #expect(unchanged == nil)
        let new = try file.rotate()
        let generation = try policy.reloadToken()
        #expect(generation == 1)
        #expect(policy.decide(offered: old, scope: .api, address: "a", nowMs: 0) == .unauthorized)
        #expect(policy.decide(offered: new, scope: .api, address: "a", nowMs: 0) == .allowed(generation: 1))
        #expect(policy.generation(ifCurrent: old) == nil && policy.generation(ifCurrent: new) == 1)
    }

    @Test("secrets compare equal only when equal, whatever their lengths")
    func secretComparison() {
        #expect(AccessPolicy.sameSecret("abc", "abc"))
        #expect(!AccessPolicy.sameSecret("abc", "abd"))
        #expect(!AccessPolicy.sameSecret("abc", "abcd"))
        #expect(!AccessPolicy.sameSecret("", "abc"))
    }

    @Test("tls auto: a certificate made once, its key 0600, the same fingerprint on the next start")
    func selfSignedCertificate() throws {
        let store = try TestFiles.makeDirectory("tls")
        let first = try SelfSignedCertificate.loadOrCreate(storeDirectory: store.path, hostName: "node-7")
        #expect(first.created)
        #expect(first.fingerprint.split(separator: ":").count == 32)
        #expect(SecretFile(directory: store.path, name: SelfSignedCertificate.keyFileName).mode == 0o600)
        let second = try SelfSignedCertificate.loadOrCreate(storeDirectory: store.path, hostName: "node-7")
        #expect(!second.created && second.fingerprint == first.fingerprint)
        let pem = try String(contentsOfFile: first.certificatePath, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
    }
}
