import Hummingbird
import X509
import HTTPTypes
import NIOCore

/// What a checker of the node's footage needs: GET /api/signing (JSON: the trust anchor and
/// the signing certificate with their fingerprints), GET /api/signing/certificate (PEM: the
/// anchor first, which is what a validator's trust anchor option reads, then the signing
/// certificate and any intermediates) and GET /api/signing/anchor (PEM: the anchor alone).
struct SigningRoutes {
    let services: NodeServices

    func register(on router: Router<NodeRequestContext>) {
        router.get("/api/signing") { _, _ in
            try withIdentity { JSONResponse.make(SigningRoutes.json($0)) }
        }
        router.get("/api/signing/certificate") { _, _ in
            try withIdentity { pem(SigningChain.pem([$0.chain.anchor] + $0.chain.certificates.dropLast()), identity: $0) }
        }
        router.get("/api/signing/anchor") { _, _ in
            try withIdentity { pem($0.anchorPEM, identity: $0) }
        }
    }

    private func withIdentity(_ body: (MediaSigningIdentity) throws -> Response) throws -> Response {
        guard let source = services.recorder.signing else {
            return JSONResponse.error("this node does not sign its footage", status: .notFound)
        }
        guard let identity = source.identity else {
            let reason = source.waitingReason ?? "not made yet"
            return JSONResponse.error("the signing key is not made yet: \(reason)", status: .serviceUnavailable)
        }
        return try body(identity)
    }

    private func pem(_ text: String, identity: MediaSigningIdentity) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/x-pem-file"
        headers[HTTPField.Name("X-Certificate-SHA256")!] = identity.fingerprint
        headers[HTTPField.Name("X-Anchor-SHA256")!] = identity.anchorFingerprint
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ identity: MediaSigningIdentity) -> JSONValue {
        func describe(_ certificate: Certificate) -> JSONValue {
            .object([
                "subject": .string(certificate.subject.description),
                "issuer": .string(certificate.issuer.description),
                "fingerprint": .string((try? certificate.sha256Fingerprint()) ?? ""),
                "notValidAfter": .string(certificate.notValidAfter.ISO8601Format()),
                "pem": .string(SigningChain.pem([certificate])),
            ])
        }
        let source: String
        switch identity.chainSource {
        case .own: source = "own"
        case .installed: source = "installed"
        case .configured: source = "configured"
        }
        return .object([
            "anchor": describe(identity.chain.anchor),
            "signingCertificate": describe(identity.chain.signingCertificate),
            "intermediates": .array(identity.chain.certificates.dropFirst().dropLast().map(describe)),
            "chainSource": .string(source),
            "operatorChain": .bool(identity.operatorProvided),
        ])
    }
}
