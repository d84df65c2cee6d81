/// What `fleet hold` did on each node: held (by the node, or in the bucket for a node that
/// is down), how many bytes, or why not.
public struct FleetHoldReport: Sendable, Codable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        /// The running node placed the hold.
        case held
        /// The node is down: the hold is in the bucket (`BucketHolds`), which its archive honours
        /// and which the node takes into its ring when it is back.
        case heldInBucket
        /// The node or the bucket answered and refused (the share limit, a bad token).
        case refused
        /// Neither the node nor the bucket could be reached.
        case failed
    }

    public struct Node: Sendable, Codable, Equatable {
        public let name: String
        public let id: String
        public let outcome: Outcome
        /// Bytes held now: the node's chunks in the span, or the bucket's copies of them.
        public let bytes: Int64?
        /// Why not, or what else to know.
        public let detail: String?
    }

    public let holdID: String
    public let startMs: Int64
    public let endMs: Int64
    public let nodes: [Node]

    /// Whether every node holds the span one way or the other.
    public var complete: Bool { nodes.allSatisfy { $0.outcome == .held || $0.outcome == .heldInBucket } }
}
