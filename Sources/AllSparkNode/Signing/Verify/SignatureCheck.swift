/// `allspark-node verify`'s verdict on a file in short, for the reports of `fleet fetch` and
/// `archive verify` (`verify FILE` gives the details).
public struct SignatureCheck: Sendable, Codable, Equatable {
    public var status: SignedFootageReport.Status
    /// SHA-256 fingerprint of the certificate that signed it.
    public var certificate: String?
    /// SHA-256 fingerprint of the trust anchor it was checked against; nil when it was
    /// checked against the certificate it carries only.
    public var anchor: String?
    public var problems: Int

    /// The check of the file at `path`, against `anchorPEM` (the node's trust anchor) when
    /// given, else the certificate it carries; nil when it cannot be read.
    static func of(_ path: String, anchorPEM: String? = nil) -> SignatureCheck? {
        guard let report = try? MediaSigningVerifier.verify(path: path, trustedPEM: anchorPEM) else { return nil }
        return SignatureCheck(
            status: report.status, certificate: report.certificateFingerprint, anchor: report.anchorFingerprint, problems: report.problems.count)
    }
}
