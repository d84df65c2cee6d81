import Foundation

/// Places and releases holds in a store directory, the same way in the node (API, fleet)
/// and in `allspark-node hold` (with the node running or not): under `HoldsLock`, from the
/// holds file as it is on disk, checked against the share of the cap holds may take.
public struct HoldLedger: Sendable {
    public let directory: URL
    public let file: HoldsFile

    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
        file = HoldsFile(storeDirectory: directory.path)
    }

    /// The holds on file that are still in force.
    public func list(nowMs: Int64 = WallClock.nowMs()) throws -> [Hold] {
        try file.read().active(atMs: nowMs)
    }

    /// Adds the hold `request` asks for, unless it would take the holds past the share.
    /// `chunks` is called under the lock: the chunks in the store (the node's index; the
    /// command line reads the directory before, not to keep the node waiting). A request
    /// carrying the id of a hold already on file with the same span is answered with that
    /// hold (the fleet retries a node), so it is placed once.
    public func add(
        _ request: HoldRequest, chunks: () -> [ChunkRecord], budget: ([ChunkRecord]) -> HoldShareBudget, nowMs: Int64 = WallClock.nowMs()
    ) throws -> HoldPlacement {
        try HoldsLock.withLock(directory: directory, exclusive: true) {
            let holds = try file.read().active(atMs: nowMs)
            let stored = chunks()
            let shareBudget = budget(stored)
            if let id = request.id, let existing = holds.first(where: { $0.id == id }) {
                guard existing.startMs == request.startMs, existing.endMs == request.endMs else {
                    throw HoldError.invalid("hold \(id) exists already with another span (\(existing.startMs)...\(existing.endMs) ms)")
                }
                return HoldPlacement(hold: existing, demand: shareBudget.demand(of: [existing], chunks: stored, nowMs: nowMs), chunks: stored.filter(existing.covers))
            }
            guard holds.count < HoldCountLimit.maximum else { throw HoldError.tooMany(limit: HoldCountLimit.maximum) }
            let hold = request.hold(createdMs: nowMs)
            let demand = try shareBudget.check(adding: hold, to: holds, chunks: stored, nowMs: nowMs)
            try file.write(holds + [hold])
            return HoldPlacement(hold: hold, demand: demand, chunks: stored.filter(hold.covers))
        }
    }

    /// Removes a hold; its chunks are the ring's again (and the age limit's).
    public func release(id: String, nowMs: Int64 = WallClock.nowMs()) throws -> Hold {
        try HoldsLock.withLock(directory: directory, exclusive: true) {
            let holds = try file.read()
            guard let released = holds.first(where: { $0.id == id && $0.isActive(atMs: nowMs) }) else { throw HoldError.unknownID(id) }
            // Lapsed holds are dropped with the change, so the file does not grow forever.
            try file.write(holds.filter { $0.id != id }.active(atMs: nowMs))
            return released
        }
    }
}

/// A hold as placed: what it keeps now, and what it expects to keep of footage to come.
public struct HoldPlacement: Sendable, Equatable {
    public let hold: Hold
    public let demand: HoldDemand
    /// The chunks already recorded in its span.
    public let chunks: [ChunkRecord]
}
