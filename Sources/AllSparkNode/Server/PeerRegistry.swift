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

    private let peers = Mutex<[UUID: (peer: Peer, outbox: Outbox, tokenGeneration: Int)]>([:])

    public init() {}

    /// - Parameter tokenGeneration: the access token generation the peer authenticated with.
    func register(address: String, outbox: Outbox, tokenGeneration: Int = 0) -> UUID {
        let id = UUID()
        peers.withLock {
            $0[id] = (Peer(id: id, name: nil, address: address, connectedAtMs: WallClock.nowMs()), outbox, tokenGeneration)
        }
        return id
    }

    /// Registers a peer unless `maximum` are connected already (`WebSocketPeerLimit`); nil then.
    func admit(address: String, outbox: Outbox, tokenGeneration: Int, maximum: Int) -> UUID? {
        let id = UUID()
        return peers.withLock {
            guard $0.count < maximum else { return nil }
            $0[id] = (Peer(id: id, name: nil, address: address, connectedAtMs: WallClock.nowMs()), outbox, tokenGeneration)
            return id
        }
    }

    /// Ends the sessions of peers that authenticated with a token older than `generation`;
    /// returns how many. Closing a session's outbox ends its conversation and its socket.
    func close(authenticatedBefore generation: Int) -> Int {
        let stale = peers.withLock { $0.values.filter { $0.tokenGeneration < generation }.map(\.outbox) }
        for outbox in stale { outbox.close() }
        return stale.count
    }

    func remove(_ id: UUID) { _ = peers.withLock { $0.removeValue(forKey: id) } }

    func rename(_ id: UUID, to name: String) { peers.withLock { $0[id]?.peer.name = name } }

    /// Queues `text` for every peer; never blocks.
    public func broadcast(_ text: String) {
        for outbox in peers.withLock({ $0.values.map(\.outbox) }) { outbox.send(text) }
    }

    public var connected: [Peer] { peers.withLock { $0.values.map(\.peer).sorted { $0.connectedAtMs < $1.connectedAtMs } } }
}
