import Foundation
import X509

/// Whether the chain a file carries reaches a certificate the checker trusts: one of the
/// given trust anchors (a CA that issued the signing certificate, directly or through the
/// file's intermediates), or the signing certificate itself when that is what was given.
/// Each link's signature is checked, every issuer must be a CA, and every certificate on
/// the path valid at the footage's signed time.
enum TrustCheck {
    enum Outcome {
        /// The chain leads to this anchor.
        case anchor(Certificate)
        /// This given certificate is the signing certificate itself.
        case signingCertificate(Certificate)
        case untrusted(String)
    }

    /// - Parameters:
    ///   - chain: the file's certificates, the signing one first.
    ///   - trusted: what the checker gave (anchors and/or signing certificates).
    ///   - time: when the footage was signed (certificates are judged then).
    static func check(chain: [Certificate], trusted: [Certificate], at time: Date) -> Outcome {
        guard let leaf = chain.first else { return .untrusted("the file carries no certificate") }
        if let given = trusted.first(where: { $0 == leaf }) { return .signingCertificate(given) }
        var path: [Certificate] = [leaf]
        var current = leaf
        var remaining = Array(chain.dropFirst())
        while path.count <= chain.count + 1 {
            if let anchor = trusted.first(where: { issued(current, by: $0) }) {
                guard let expired = (path + [anchor]).first(where: { !($0.notValidBefore...$0.notValidAfter).contains(time) }) else {
                    return .anchor(anchor)
                }
                return .untrusted("\(expired.subject) was not valid when the footage was signed (\(time))")
            }
            guard let index = remaining.firstIndex(where: { issued(current, by: $0) }) else { break }
            current = remaining.remove(at: index)
            path.append(current)
        }
        let names = trusted.map { "\($0.subject)" }.joined(separator: "; ")
        return .untrusted("its signing certificate (\(leaf.subject)) does not chain up to any given certificate (\(names))")
    }

    private static func issued(_ certificate: Certificate, by issuer: Certificate) -> Bool {
        certificate.issuer == issuer.subject && SigningChain.isAuthority(issuer)
            && issuer.publicKey.isValidSignature(certificate.signature, for: certificate)
    }
}
