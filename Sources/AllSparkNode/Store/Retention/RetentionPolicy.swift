/// The store's rules besides the cap: how old footage may get, and how much of the cap holds may take.
public struct RetentionPolicy: Sendable, Equatable {
    /// Chunks whose last frame is older than this are deleted; 0: no age limit.
    public var maxAgeMs: Int64
    /// The most of the cap that held chunks (and the footage holds expect) may take.
    public var heldShare: Double

    public init(maxAgeMs: Int64 = 0, heldShare: Double = 0.5) {
        self.maxAgeMs = maxAgeMs
        self.heldShare = heldShare
    }

    public init(_ config: NodeConfig) {
        self.init(maxAgeMs: Int64((config.videoBufferMaxAgeHours * 3_600_000).rounded()), heldShare: config.videoBufferMaxHeldShare)
    }
}
