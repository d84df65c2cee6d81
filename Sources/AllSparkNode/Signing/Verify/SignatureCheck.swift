/// `allspark-node verify`'s verdict on a file in short, for the reports of `fleet fetch` and
/// `archive verify` (`verify FILE` gives the details).
public struct SignatureCheck: Sendable, Codable, Equatable {
    public var status: SignedFootageReport.Status
    /// SHA-256 fingerprint of the certificate that signed it.
    public var certificate: String?
    public var problems: Int

    /// The check of the file at `path`, against the certificate it carries; nil when it cannot be read.
    static func of(_ path: String) -> SignatureCheck? {
        guard let report = try? MediaSigningVerifier.verify(path: path) else { return nil }
        return SignatureCheck(status: report.status, certificate: report.certificateFingerprint, problems: report.problems.count)
    }
}
