import Foundation

/// A file that is written a whole page at a time, for a writer that syncs often: a page
/// written, synced and then written again is written to the disk twice (and counted twice in
/// `/proc/PID/io`), which for a fragment synced every 250 ms was 4.4% of a 3 Mbit/s
/// stream on the SD card. The partial last page stays in memory while the rest is written;
/// `sync()` makes the whole pages durable first and only once that sync has ended puts the
/// partial one in the page cache, where the next write fills it while it is still dirty. So
/// every page goes to the disk once.
///
/// The syncs run on a thread of their own (`BackgroundDataSync`): `sync()` returns at once,
/// and the partial page goes in the file at the writer's first call after the sync ended.
/// What a killed process (not a power cut) may lose beyond what it wrote after its last
/// sync is that partial page, until then. What a power cut may take beyond the last ended
/// sync is the partial page (under 4 KiB) of a fragment that reaches past it: `ChunkRecovery`
/// keeps the whole samples of a fragment torn there.
final class WholePageFileWriter {
    static let pageSize = 4096

    let path: String
    private let descriptor: Int32
    /// The bytes from `tailOffset` (a page boundary) to the end of the file, never a whole page.
    private let tail: UnsafeMutableRawBufferPointer
    private var tailCount = 0
    private var tailOffset: Int64 = 0
    /// Where the next write goes (the muxer goes back to fill in box sizes).
    private(set) var position: Int64 = 0
    private let syncs: BackgroundDataSync
    /// The sync whose end the partial page waits for before it goes in the file.
    private var partialPageAwaitsSync: UInt64?

    var size: Int64 { tailOffset + Int64(tailCount) }

    /// Creates (or empties) the file at `path`.
    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DurableFile.Failure(operation: "creating", path: path, code: errno) }
        tail = .allocate(byteCount: Self.pageSize, alignment: 16)
        syncs = BackgroundDataSync(descriptor: descriptor)
    }

    deinit {
        syncs.stop()
        tail.deallocate()
        close(descriptor)
    }

    /// Writes `bytes` at `position` and moves past them.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try takeEndedSyncs()
        var rest = bytes
        // Below the partial page: bytes already in the page cache are written over directly.
        if position < tailOffset {
            let direct = min(rest.count, Int(tailOffset - position))
            try writeFully(UnsafeRawBufferPointer(rebasing: rest[0..<direct]), at: position)
            position += Int64(direct)
            rest = UnsafeRawBufferPointer(rebasing: rest[direct...])
        }
        // Inside the partial page.
        if !rest.isEmpty, position < size {
            let inside = min(rest.count, Int(size - position))
            let start = Int(position - tailOffset)
            UnsafeMutableRawBufferPointer(rebasing: tail[start..<start + inside]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: rest[0..<inside]))
            position += Int64(inside)
            rest = UnsafeRawBufferPointer(rebasing: rest[inside...])
        }
        if !rest.isEmpty { try append(rest) }
    }

    /// Moves the write position; only within what is written (the muxer never leaves holes).
    func seek(to offset: Int64) throws {
        guard offset >= 0, offset <= size else { throw DurableFile.Failure(operation: "seeking to \(offset) in", path: path, code: EINVAL) }
        position = offset
    }

    /// Starts making every whole page durable; the partial last page goes in the page cache
    /// once that has ended (see the type's comment for why in that order). When the partial
    /// page holds all of what was written since `newestStart` (a stream of a few KB a second,
    /// whose fragments fit in a page), it goes in the file first and is made durable too, at
    /// the cost of writing it again later: a power cut then takes no more than it did before
    /// whole pages.
    /// - Throws: when an earlier sync failed.
    func sync(newestStart: Int64) throws {
        try takeEndedSyncs()
        if newestStart >= tailOffset {
            try writePartialPage()
            _ = syncs.request()
            return
        }
        let number = syncs.request()
        // Behind a slow disk the page waits for the first sync only, not for every later one.
        if partialPageAwaitsSync == nil { partialPageAwaitsSync = number }
    }

    /// Whether a sync started has not ended yet.
    var syncInFlight: Bool { syncs.pending }

    /// Waits for the syncs started so far, then puts the partial page in the file.
    func settle() throws {
        let failure = syncs.waitForAll()
        guard failure == 0 else { throw DurableFile.Failure(operation: "syncing", path: path, code: failure) }
        partialPageAwaitsSync = nil
        try writePartialPage()
    }

    /// Puts everything in the file and makes it durable: the file is complete.
    func syncAll() throws {
        try settle()
        guard fdatasync(descriptor) == 0 else { throw DurableFile.Failure(operation: "syncing", path: path, code: errno) }
    }

    /// Reports a sync that failed, and puts the partial page in the file once the sync it
    /// waits for has ended.
    private func takeEndedSyncs() throws {
        let progress = syncs.progress()
        guard progress.failure == 0 else { throw DurableFile.Failure(operation: "syncing", path: path, code: progress.failure) }
        if let awaited = partialPageAwaitsSync, progress.completed >= awaited {
            partialPageAwaitsSync = nil
            try writePartialPage()
        }
    }

    /// Puts the partial last page in the file without syncing (a store that vanished, a test).
    func writePartialPage() throws {
        if tailCount > 0 { try writeFully(UnsafeRawBufferPointer(rebasing: tail[0..<tailCount]), at: tailOffset) }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes
        if tailCount > 0 || rest.count < Self.pageSize {
            let taken = min(Self.pageSize - tailCount, rest.count)
            UnsafeMutableRawBufferPointer(rebasing: tail[tailCount..<tailCount + taken]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: rest[0..<taken]))
            tailCount += taken
            position += Int64(taken)
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            guard tailCount == Self.pageSize else { return }
            try writeFully(UnsafeRawBufferPointer(tail), at: tailOffset)
            tailOffset += Int64(Self.pageSize)
            tailCount = 0
        }
        let whole = rest.count / Self.pageSize * Self.pageSize
        if whole > 0 {
            try writeFully(UnsafeRawBufferPointer(rebasing: rest[0..<whole]), at: tailOffset)
            tailOffset += Int64(whole)
        }
        let left = rest.count - whole
        if left > 0 { tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[whole...])) }
        tailCount = left
        position = tailOffset + Int64(left)
    }

    private func writeFully(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if result < 0 {
                if errno == EINTR { continue }
                throw DurableFile.Failure(operation: "writing", path: path, code: errno)
            }
            done += result
        }
    }
}
