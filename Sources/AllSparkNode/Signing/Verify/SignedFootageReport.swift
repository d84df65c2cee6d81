/// What `allspark-node verify` says about one file.
public struct SignedFootageReport: Sendable, Encodable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// Every signed GOP checks out and none is missing (an unsigned tail may follow).
        case valid
        /// Something signed was changed, reordered, dropped, or signed by another key.
        case invalid
        /// No signing SEI at all.
        case unsigned
    }

    /// One (partial) GOP that failed, or a run of GOPs whose SEIs are gone.
    public struct Problem: Sendable, Encodable, Equatable {
        public enum Kind: String, Sendable, Encodable {
            case invalid
            case missing
        }

        public let kind: Kind
        /// The GOP counter of the SEI concerned (for missing GOPs: the first one missing).
        public let counter: UInt32?
        /// Signed capture times of the GOP (epoch ms), when known.
        public let startMs: Int64?
        public let endMs: Int64?
        public let reason: String
    }

    public let file: String
    public var status: Status = .unsigned
    public var frames = 0
    public var signedGOPs = 0
    public var validGOPs = 0
    /// Signed capture times of the first and last GOP that verified (epoch ms).
    public var firstSignedMs: Int64?
    public var lastSignedMs: Int64?
    public var problems: [Problem] = []
    /// Slices after the last signature (a recording cut off, e.g. by kill -9): not signed,
    /// which is not a tamper.
    public var unsignedTailSlices = 0
    /// Slices before the first signature.
    public var unsignedHeadSlices = 0
    /// What the signing certificate was trusted through.
    public enum Trust: String, Sendable, Encodable {
        /// Its chain reaches a given trust anchor (`anchorSubject`).
        case anchor
        /// It is a given certificate itself.
        case signingCertificate
        /// Nothing was given: the file's own certificate says who signed it, unchecked.
        case embedded
    }

    /// The signing certificate: its subject and SHA-256 fingerprint.
    public var certificateSubject: String?
    public var certificateFingerprint: String?
    public var trust: Trust?
    /// The given trust anchor the signing certificate chains up to.
    public var anchorSubject: String?
    public var anchorFingerprint: String?

    public init(file: String) { self.file = file }
}
