import Synchronization
import Foundation
import Testing
@testable import AllSparkNode

/// A store on a small tmpfs (mounted by the test; CI runs as root), so the disk, not the cap, runs out.
@Suite(.serialized)
struct FullDiskTests {
    private func mountSmallDisk(megabytes: Int) throws -> URL {
        let mountPoint = try TestFiles.makeDirectory("disk")
        let result = try TestFiles.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", mountPoint.path])
        guard result.status == 0 else { throw TestFailure("mounting a tmpfs needs root: \(result.output)") }
        return mountPoint
    }

    private func unmount(_ url: URL) { _ = try? TestFiles.run("/bin/umount", [url.path]) }

    @Test("a disk smaller than the cap: the store evicts to make room and recording never stops")
    func diskSmallerThanCap() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 4)
        let disk = try mountSmallDisk(megabytes: 3)
        defer { unmount(disk) }
        var config = RecorderHarness.config(source: input.path, store: disk, chunkMs: 1000, loop: true)
        config.videoBufferMaxMB = 1000
        let harness = try RecorderHarness(config: config, storeDirectory: disk)
        try await harness.run(stopWhen: { $0.savedChunks.count >= 60 })

        let saved = harness.savedChunks
        #expect(saved.count >= 60)
        // The last chunk ends where the test stopped the recorder.
        #expect(saved.dropLast().allSatisfy { $0.frameCount == 30 }, "no chunk was cut short: \(saved.map(\.frameCount))")
        #expect(harness.store.usage.chunksEvicted > 20)
        for chunk in harness.store.allChunks {
            let decoded = try DecodedChunk.decode(disk.appendingPathComponent(chunk.fileName).path)
            #expect(decoded.decodedFrames == chunk.frameCount)
        }
    }

    @Test("another program fills the disk: the node evicts, keeps running, and records again once space returns")
    func diskFilledByAnotherProgram() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 4)
        let disk = try mountSmallDisk(megabytes: 4)
        defer { unmount(disk) }
        var config = RecorderHarness.config(source: input.path, store: disk, chunkMs: 1000, loop: true)
        config.videoBufferMaxMB = 1000
        let harness = try RecorderHarness(config: config, storeDirectory: disk)
        let filler = disk.appendingPathComponent("filler.bin")
        let filledAt = Mutex<(date: Date, chunks: Int)?>(nil)
        let freedAt = Mutex<Int?>(nil)
        try await harness.run(stopWhen: { harness in
            let count = harness.savedChunks.count
            if count >= 5, filledAt.withLock({ $0 }) == nil {
                // Take every free byte; only the node's own chunks can make room now.
                _ = try? TestFiles.run("/usr/bin/fallocate", ["-l", "\(DurableFile.availableBytes(at: disk.path) ?? 0)", filler.path])
                filledAt.withLock { $0 = (Date(), count) }
            }
            if let filled = filledAt.withLock({ $0 }), freedAt.withLock({ $0 }) == nil, Date().timeIntervalSince(filled.date) > 3 {
                try? FileManager.default.removeItem(at: filler)
                freedAt.withLock { $0 = count }
            }
            return freedAt.withLock { $0 }.map { count >= $0 + 10 } ?? false
        }, timeoutSeconds: 300)
        let freed = try #require(freedAt.withLock { $0 }, "the disk was filled and freed")
        #expect(harness.savedChunks.count >= freed + 10, "recording went on once space returned")
        #expect(harness.recorder.status.framesCaptured > harness.recorder.status.framesEncoded / 2)
        for chunk in harness.store.allChunks {
            let decoded = try DecodedChunk.decode(disk.appendingPathComponent(chunk.fileName).path)
            #expect(decoded.firstPacketIsKeyframe && decoded.decodedFrames == chunk.frameCount)
        }
    }

    @Test("a disk full before recording starts: a few tries instead of a chunk every few frames, then recording once space returns")
    func diskFullBeforeStart() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 4)
        let disk = try mountSmallDisk(megabytes: 8)
        defer { unmount(disk) }
        let store = disk.appendingPathComponent("store")
        var config = RecorderHarness.config(source: input.path, store: store, chunkMs: 1000, loop: true)
        config.videoBufferMaxMB = 1000
        let harness = try RecorderHarness(config: config, storeDirectory: store)
        // Another program takes every free byte before the first frame.
        let filler = disk.appendingPathComponent("filler.bin")
        let fill = try TestFiles.run("/usr/bin/fallocate", ["-l", "\(DurableFile.availableBytes(at: disk.path) ?? 0)", filler.path])
        try #require(fill.status == 0, "fallocate: \(fill.output)")
        let fullSince = Mutex<Date?>(nil)
        let whileFull = Mutex<RecorderStatus?>(nil)
        try await harness.run(stopWhen: { harness in
            let status = harness.recorder.status
            guard let since = fullSince.withLock({ $0 }) else {
                if status.storeWaiting { fullSince.withLock { $0 = Date() } }
                return false
            }
            if whileFull.withLock({ $0 }) == nil {
                // Wait while many frames arrive with nowhere to go (the old node tried a chunk every 4).
                guard status.framesDroppedForStore >= 600, Date().timeIntervalSince(since) > 15 else { return false }
                whileFull.withLock { $0 = status }
                try? FileManager.default.removeItem(at: filler)
                return false
            }
            return harness.savedChunks.count >= 3
        }, timeoutSeconds: 300)
        let full = try #require(whileFull.withLock { $0 }, "the recorder waited for space")
        #expect(full.chunkStartFailures >= 1 && full.chunkStartFailures <= 10, "tries while full: \(full.chunkStartFailures)")
        #expect(full.framesDroppedForStore >= 600 && full.storeFullEvents == 1)
        // The total counts them too: the capture's own count does not overwrite it.
        #expect(full.framesDropped >= full.framesDroppedForStore, "dropped \(full.framesDropped), for the store \(full.framesDroppedForStore)")
        let reason = try #require(full.storeError)
        #expect(reason.hasPrefix("disk full: ") && reason.contains("bytes free, a chunk needs about"), "\(reason)")
        #expect(!full.recording)
        #expect(harness.savedChunks.count >= 3, "recording went on once space returned")
        let after = harness.recorder.status
        #expect(!after.storeWaiting && after.storeError == nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.path).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty || leftovers.count == 1, "no part file per try: \(leftovers)")
        for chunk in harness.store.allChunks {
            let decoded = try DecodedChunk.decode(store.appendingPathComponent(chunk.fileName).path)
            #expect(decoded.firstPacketIsKeyframe && decoded.decodedFrames == chunk.frameCount)
        }
    }
}
