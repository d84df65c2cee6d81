import Foundation
import Testing
@testable import AllSparkNode

/// The chunk file's writer: every page reaches the disk once although the file is synced
/// after every fragment, and what it holds is exactly what was written.
struct WholePageFileWriterTests {
    /// Bytes this thread has dirtied for the disk so far (`/proc/thread-self/io`): the
    /// kernel counts a page each time it goes from clean to dirty.
    private func writeBytesOfThisThread() throws -> Int64 {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("write_bytes:") })
        return try #require(Int64(line.split(separator: " ").last!))
    }

    /// 40 fragments of 10,001 bytes, synced after each, as `ChunkWriter` does every 250 ms.
    private let fragments: [[UInt8]] = (0..<40).map { index in (0..<10_001).map { UInt8(truncatingIfNeeded: $0 * 7 + index) } }

    @Test("synced after every fragment, each page is written once (plain writes write the partial last page again each time)")
    func eachPageWrittenOnce() throws {
        let directory = try TestFiles.makeDirectory("whole-pages")
        let total = fragments.reduce(0) { $0 + $1.count }

        // Sync tests run on one thread from start to end, so the thread's counter is theirs alone.
        let plainPath = directory.appendingPathComponent("plain").path
        let plainBefore = try writeBytesOfThisThread()
        let plain = open(plainPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(plain >= 0)
        for fragment in fragments {
            _ = fragment.withUnsafeBytes { write(plain, $0.baseAddress, $0.count) }
            fdatasync(plain)
        }
        close(plain)
        let plainBytes = try writeBytesOfThisThread() - plainBefore
        try #require(plainBytes >= Int64(total), "the file system counts dirtied pages (ext4; not tmpfs): \(plainBytes)")

        let path = directory.appendingPathComponent("whole-pages").path
        let before = try writeBytesOfThisThread()
        let writer = try WholePageFileWriter(path: path)
        for fragment in fragments {
            let start = writer.size
            try fragment.withUnsafeBytes { try writer.write($0) }
            try writer.sync(newestStart: start)
            try writer.settle()  // the next fragment, 250 ms later, finds the sync ended
        }
        try writer.syncAll()
        let bytes = try writeBytesOfThisThread() - before
        let pages = (Int64(total) + 4095) / 4096
        // The kernel's background writeback may clean a page between two writes when the
        // machine writes a lot (it did, once, in a full test run): a few pages of slack.
        #expect(bytes <= (pages + 10) * 4096, "each page once: \(bytes) bytes dirtied for \(total) written")
        #expect(plainBytes >= bytes + 25 * 4096, "plain writes: \(plainBytes), whole pages: \(bytes)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(fragments.joined()))
    }

    @Test("after a sync the partial page waits for it to end; the writer's next call then puts it in the file (a killed process loses no more)")
    func partialPageFollowsTheSync() throws {
        let path = try TestFiles.makeDirectory("whole-pages").appendingPathComponent("file").path
        let writer = try WholePageFileWriter(path: path)
        try fragments[0].withUnsafeBytes { try writer.write($0) }
        #expect(DurableFile.size(of: path) == 8192, "before the sync only whole pages are in the file")
        try writer.sync(newestStart: 0)
        #expect(DurableFile.size(of: path) == 8192, "the partial page waits for the sync to end")
        let waitedUntil = ContinuousClock.now + .seconds(60)
        while writer.syncInFlight && ContinuousClock.now < waitedUntil { Thread.sleep(forTimeInterval: 0.001) }
        try #require(!writer.syncInFlight)
        try writer.write(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(fragments[0]))
    }

    @Test("a sync that fails is reported by the writer's next call, and from then on")
    func failedSyncIsReported() throws {
        // /dev/null takes writes but cannot be synced (EINVAL).
        let writer = try WholePageFileWriter(path: "/dev/null")
        try fragments[0].withUnsafeBytes { try writer.write($0) }
        try writer.sync(newestStart: 0)
        #expect(throws: DurableFile.Failure.self) { try writer.settle() }
        #expect(throws: DurableFile.Failure.self) { try fragments[1].withUnsafeBytes { try writer.write($0) } }
        #expect(throws: DurableFile.Failure.self) { try writer.sync(newestStart: writer.size) }
    }

    @Test("going back to fill in a box size, in a whole page or in the partial one, lands where it should")
    func rewritesLandInPlace() throws {
        let path = try TestFiles.makeDirectory("whole-pages").appendingPathComponent("file").path
        let writer = try WholePageFileWriter(path: path)
        var expected = [UInt8](repeating: 0xAA, count: 9000)
        try expected.withUnsafeBytes { try writer.write($0) }
        for (offset, value) in [(10, UInt8(1)), (8190, 2), (8500, 3)] {
            try writer.seek(to: Int64(offset))
            let patch = [UInt8](repeating: value, count: 4)
            try patch.withUnsafeBytes { try writer.write($0) }
            expected.replaceSubrange(offset..<offset + 4, with: patch)
        }
        try writer.seek(to: writer.size)
        let more = [UInt8](repeating: 0x55, count: 5000)
        try more.withUnsafeBytes { try writer.write($0) }
        expected += more
        #expect(throws: DurableFile.Failure.self) { try writer.seek(to: writer.size + 1) }
        try writer.syncAll()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected))
    }

    @Test("a fragment that lies wholly in the partial page is made durable at its sync (a power cut takes no more than before), paying the page's second write")
    func smallFragmentsAreSyncedWhole() throws {
        let path = try TestFiles.makeDirectory("whole-pages").appendingPathComponent("small").path
        let before = try writeBytesOfThisThread()
        let writer = try WholePageFileWriter(path: path)
        let fragment = [UInt8](repeating: 7, count: 500)
        for _ in 0..<40 {
            let start = writer.size
            try fragment.withUnsafeBytes { try writer.write($0) }
            try writer.sync(newestStart: start)
            try writer.settle()
        }
        let bytes = try writeBytesOfThisThread() - before
        // 20,000 bytes: 5 pages if each were written once; a sync after each fragment writes
        // the partial page again about 35 times.
        #expect(bytes >= 30 * 4096, "\(bytes) bytes dirtied")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 7, count: 20_000))
    }
}
