import Foundation
import Synchronization

/// The WebSocket peers connected to the node's own server, and the events pushed to all of them.
public final class PeerRegistry: Sendable {
    public struct Peer: Sendable, Equatable {
        public let id: UUID
        public var name: String?
        public let address: String
        public let connectedAtMs: Int64
    }

    private let peers = Mutex<[UUID: (peer: Peer, outbox: Outbox)]>([:])

    public init() {}

    func register(address: String, outbox: Outbox) -> UUID {
        let id = UUID()
        peers.withLock { $0[id] = (Peer(id: id, name: nil, address: address, connectedAtMs: WallClock.nowMs()), outbox) }
        return id
    }

    func remove(_ id: UUID) { _ = peers.withLock { $0.removeValue(forKey: id) } }

    func rename(_ id: UUID, to name: String) { peers.withLock { $0[id]?.peer.name = name } }

    /// Queues `text` for every peer; never blocks.
    public func broadcast(_ text: String) {
        for outbox in peers.withLock({ $0.values.map(\.outbox) }) { outbox.send(text) }
    }

    public var connected: [Peer] { peers.withLock { $0.values.map(\.peer).sorted { $0.connectedAtMs < $1.connectedAtMs } } }
}
