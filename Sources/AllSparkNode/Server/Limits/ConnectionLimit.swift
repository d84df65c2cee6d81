import Synchronization

/// How many HTTP and WebSocket connections the node's port holds open at once. A connection
/// past the limit is answered 503 naming it and closed at once, rather than left waiting
/// in the kernel's queue, so the node's own files and the token holder's connections keep
/// their room. Idle ones cannot pin it: `RequestHeadTimeout` closes them.
final class ConnectionLimit: Sendable {
    /// About 13 KiB of memory each while idle: 2,048 cost some 27 MB.
    static let defaultMaximum = 2_048

    let maximum: Int
    private let open = Atomic<Int>(0)

    init(maximum: Int = ConnectionLimit.defaultMaximum) {
        self.maximum = maximum
    }

    /// Counts a new connection; false (and not counted) when the limit is reached.
    func admit() -> Bool {
        var current = open.load(ordering: .relaxed)
        while current < maximum {
            let (exchanged, original) = open.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func release() { open.subtract(1, ordering: .relaxed) }

    var count: Int { open.load(ordering: .relaxed) }

    var refusal: String {
        "the node has \(maximum) connections open, its limit (server connection limit); try again later"
    }
}
