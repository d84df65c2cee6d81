import Foundation

/// What replay plays: the ring store's chunks, behind them those only the archive still
/// holds, and after them the chunk being written (as far as its fragments are complete),
/// oldest first. Each replay takes the list as it is when it seeks; a chunk evicted while it
/// plays is still read to its end (its file stays open), one evicted before is skipped
/// unless the archive has it.
struct ReplayFootage: Sendable {
    let store: ChunkStore
    /// The archive tier's catalog when `archive.endpoint` is set: a PLAY of footage the ring
    /// has let go of is played from the bucket.
    let archive: ArchiveCatalog?

    init(store: ChunkStore, archive: ArchiveCatalog? = nil) {
        self.store = store
        self.archive = archive
    }

    /// The longest replay waits on the archive for a listing or one chunk's files: the
    /// client's RTSP thread waits meanwhile, and a bucket that does not answer leaves the
    /// replay to the ring's footage rather than hang it.
    static let archiveWait: Duration = .seconds(10)

    /// The ring's chunks holding footage at or after `unixMs`, oldest first.
    func heldChunks(from unixMs: Int64) -> [ReplayChunk] {
        store.allChunks.filter { $0.endMs >= unixMs }.sorted { $0.startMs < $1.startMs }.map(ReplayChunk.held)
    }

    /// The chunks holding footage at or after `unixMs`, oldest first: the archive's for the
    /// part of the time the ring no longer holds whole (asked only then), the ring's, then
    /// the one being written.
    func chunks(from unixMs: Int64, nowMs: Int64 = WallClock.nowMs()) -> [ReplayChunk] {
        var held = heldChunks(from: unixMs)
        if let writing = writingChunk(), !held.contains(where: { $0.record.stamp == writing.record.stamp }) { held.append(writing) }
        guard let archive, let older = store.rangeNotWhollyHeld(startMs: unixMs, endMs: nowMs) else { return held }
        let archived = BoundedWait.result(within: Self.archiveWait) {
            try await archive.chunks(overlappingStartMs: older.startMs, endMs: older.endMs, notHeldBy: store)
        }
        let stamps = Set(held.map(\.record.stamp))
        let fromArchive = (archived ?? []).filter { !stamps.contains($0.stamp) }.map(ReplayChunk.archived)
        return (fromArchive + held).sorted { $0.record.startMs < $1.record.startMs }
    }

    func path(of chunk: ChunkRecord) -> String {
        store.directory.appendingPathComponent(chunk.fileName).path
    }

    /// The chunk the recorder is writing now (its hidden part file), if any.
    func writingChunk() -> ReplayChunk? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: store.directory.path) else { return nil }
        var newest: (stamp: String, format: VideoFormat, startMs: Int64)?
        for name in names {
            guard case .part(let stamp, let format) = ChunkNaming.classify(name), let startMs = ChunkNaming.startMs(ofStamp: stamp),
                startMs > newest?.startMs ?? .min
            else { continue }
            newest = (stamp, format, startMs)
        }
        return newest.map { .writing(stamp: $0.stamp, format: $0.format, startMs: $0.startMs) }
    }
}

/// One chunk a replay can play: held by the ring, only by the archive, or being written.
enum ReplayChunk: Sendable, Equatable {
    case held(ChunkRecord)
    case archived(ArchiveManifest)
    case writing(stamp: String, format: VideoFormat, startMs: Int64)

    /// What is known of it: of the chunk being written only its name and first frame's
    /// time (the rest is 0 until it is finished).
    var record: ChunkRecord {
        switch self {
        case .held(let record): record
        case .archived(let manifest): manifest.record
        case .writing(let stamp, let format, let startMs):
            ChunkRecord(stamp: stamp, format: format, startMs: startMs, endMs: startMs, frameCount: 0, chunkBytes: 0, timestampsBytes: 0)
        }
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
