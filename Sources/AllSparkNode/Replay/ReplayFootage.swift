import Foundation

/// What replay plays: the ring store's chunks, oldest first, and where their files are.
/// Each replay takes the list as it is when it seeks; a chunk evicted while it plays is
/// still read to its end (its file stays open), one evicted before is skipped.
struct ReplayFootage: Sendable {
    let store: ChunkStore

    /// The chunks holding footage at or after `unixMs`, oldest first.
    func chunks(from unixMs: Int64) -> [ChunkRecord] {
        store.allChunks.filter { $0.endMs >= unixMs }.sorted { $0.startMs < $1.startMs }
    }

    func path(of chunk: ChunkRecord) -> String {
        store.directory.appendingPathComponent(chunk.fileName).path
    }
}

/// Replay's clock: nanoseconds since 1900-01-01 UTC, NTP's epoch, which GStreamer gives a
/// PLAY's `Range: clock=` in and rtponviftimestamp writes into each frame's 0xABAC extension.
enum NTPTime {
    static let unixEpochMs: Int64 = 2_208_988_800_000

    static func nanoseconds(unixMs: Int64) -> UInt64 { UInt64(max(0, unixMs + unixEpochMs)) * 1_000_000 }

    /// The unix time in ms of `ns` (rounded down).
    static func unixMs(_ ns: UInt64) -> Int64 { Int64(ns / 1_000_000) - unixEpochMs }
}
