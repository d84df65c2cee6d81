import Foundation

/// An evidence lock on a span of footage: every chunk with a frame in [startMs, endMs) is
/// kept by the store (not evicted by the cap, by age, or by the archive's age) until the
/// hold is released or expires. The span may lie partly or wholly in the future.
public struct Hold: Sendable, Equatable, Codable {
    public let id: String
    public let startMs: Int64
    public let endMs: Int64
    public let reason: String
    public let createdMs: Int64
    /// After this the hold lapses by itself; nil: it lasts until released.
    public let expiresMs: Int64?

    public init(id: String = Hold.newID(), startMs: Int64, endMs: Int64, reason: String, createdMs: Int64, expiresMs: Int64?) {
        self.id = id
        self.startMs = startMs
        self.endMs = endMs
        self.reason = reason
        self.createdMs = createdMs
        self.expiresMs = expiresMs
    }

    /// `hold-` and 12 hex digits: short enough to type into `hold release`.
    public static func newID() -> String {
        "hold-" + (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    public func isActive(atMs nowMs: Int64) -> Bool { expiresMs.map { nowMs < $0 } ?? true }

    public func covers(_ chunk: ChunkRecord) -> Bool { chunk.overlaps(startMs: startMs, endMs: endMs) }
}

extension Array where Element == Hold {
    /// The holds in force at `nowMs`.
    public func active(atMs nowMs: Int64) -> [Hold] { filter { $0.isActive(atMs: nowMs) } }

    /// Ids of the holds that keep `chunk`.
    public func ids(covering chunk: ChunkRecord) -> [String] { filter { $0.covers(chunk) }.map(\.id) }
}
