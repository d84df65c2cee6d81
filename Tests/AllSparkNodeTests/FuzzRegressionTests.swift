import CFFmpeg
import Foundation
import Logging
import Testing

@testable import AllSparkNode

/// Each input a fuzz target found a fault with (Tests/Fuzz/regressions/<target>/), run
/// through the same parser as in the fuzzer, with what must hold now. scripts/fuzz.sh
/// replays them too, under AddressSanitizer's leak checker.
@Suite("Fuzz findings stay fixed")
struct FuzzRegressionTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/regressions")

    static func input(_ target: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: regressions.appendingPathComponent("\(target)/\(name)")))
    }

    @Test("a store file name whose stamp is past Int64's milliseconds is no chunk (it trapped: a crash at every start)")
    func stampPastInt64Milliseconds() throws {
        let name = String(decoding: try Self.input("chunk-names", "stamp-past-int64-ms"), as: UTF8.self)
        #expect(name == "chunk_179588386958838622.888.mp4")
        #expect(ChunkNaming.classify(name) == .other)
        #expect(ChunkNaming.startMs(ofStamp: "9223372036854775.807") == 9_223_372_036_854_775_807)
        #expect(ChunkNaming.startMs(ofStamp: "9223372036854775.808") == nil)
        #expect(ChunkNaming.classify("timestamps_179588386958838622.888.txt") == .other)
        #expect(ChunkNaming.classify("chunk_1795883862.888.mp4") == .chunk(stamp: "1795883862.888", format: .mp4))
    }

    @Test("an empty sidecar reads as no times, through the reader that does not leak on empty files")
    func emptySidecar() throws {
        let directory = try TestFiles.makeDirectory("fuzz-regression")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("timestamps_1.000.txt").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(try Self.input("timestamps-file", "empty-file-leak"))))
        #expect(TimestampsFile.read(path: path) == nil)
        #expect(try TextFile.read(path) == "")
        #expect(try TextFile.read("/proc/self/maps").contains("\n"))
        #expect(throws: TextFile.Unreadable.self) { try TextFile.read(directory.appendingPathComponent("absent").path) }
    }

    @Test(
        "a config nested thousands deep is refused by name before Yams reads it (it overflowed the stack); the shipped one reads",
        arguments: ["flow-nesting-stack-overflow", "spaced-question-markers-stack-overflow"])
    func deeplyNestedConfig(finding: String) throws {
        let directory = try TestFiles.makeDirectory("fuzz-regression")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("node.yaml").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(try Self.input("config-file", finding))))
        #expect(throws: ConfigError.self) { try ConfigLoader.readYAML(path: path) }
        do {
            _ = try ConfigLoader.readYAML(path: path)
        } catch {
            #expect("\(error)".contains("nested deeper than 32 levels"))
        }
        #expect(YAMLNesting.depth(of: String(repeating: "- ", count: 5000) + "x") > YAMLNesting.maximumDepth)
        #expect(YAMLNesting.depth(of: String(repeating: "?   ", count: 40) + "x") > YAMLNesting.maximumDepth)
        #expect(YAMLNesting.depth(of: "a:\n  - b\n  - c: -1\n  -\n    d: x-y\n") == 3)
        let shipped = Self.regressions.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/allspark-node.yaml").path
        #expect(YAMLNesting.depth(of: try TextFile.read(shipped)) <= 3)
        #expect(try !ConfigLoader.readYAML(path: shipped).isEmpty)
    }

    @Test("a trun of 2^32 - 1 samples without per-sample fields is damage, not 96 GB reserved for its samples")
    func hugeSampleCount() throws {
        let bytes = try Self.input("mp4-boxes", "trun-count-without-fields")
        let defaults = try FragmentSamples.Defaults(movie: bytes)
        let moofs = try ChildBox.children(of: bytes, in: 0..<bytes.count, parent: "file").filter { $0.type == "moof" }
        #expect(!moofs.isEmpty)
        var samples = FragmentSamples()
        var refused = 0
        for moof in moofs {
            do {
                try samples.add(moof: Array(bytes[moof.range]), at: UInt64(moof.range.lowerBound), defaults: defaults)
            } catch {
                refused += 1
            }
        }
        #expect(refused >= 1)
        #expect(samples.samples.count <= FragmentSamples.maximumSamples)
    }

    @Test("part files whose runs describe millions of samples in a few KB fail to finish at once, held to their size (a hang and a 96 GB reservation)")
    func partFilesWithImpossibleRuns() throws {
        let directory = try TestFiles.makeDirectory("fuzz-regression")
        defer { try? FileManager.default.removeItem(at: directory) }
        for (target, name) in [("part-file", "many-runs-timeout"), ("part-recovery", "trun-count-oom")] {
            let input = try Self.input(target, name)
            let path = directory.appendingPathComponent(name).path
            // The targets' first byte picks the mode; the rest is the file.
            #expect(FileManager.default.createFile(atPath: path, contents: Data(input.dropFirst())))
            #expect(throws: FinishingError.self) {
                try ChunkFinisher.finish(path: path, firstFrameEpochMs: 1_700_000_000_000, keepingIntactPrefix: true)
            }
        }
    }

    @Test("start-up recovery removes a part whose fragments claim more samples than it has bytes, without handing it to libav (855 MB for 2.9 KB)")
    func impossiblePartIsRemovedUnread() throws {
        let (record, left) = try Self.recoverPart("trun-count-oom")
        #expect(record == nil)
        #expect(left.isEmpty)
    }

    /// Recovers part-recovery's input `name` as a store's part file; returns the chunk and
    /// what the store directory holds afterwards.
    static func recoverPart(_ name: String) throws -> (ChunkRecord?, [String]) {
        let directory = try TestFiles.makeDirectory("fuzz-regression")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.input("part-recovery", name)
        let part = directory.appendingPathComponent(ChunkNaming.partFileName(stamp: "1795883878.653", format: .mp4))
        // The target's first byte picks the format; the rest is the file.
        #expect(FileManager.default.createFile(atPath: part.path, contents: Data(input.dropFirst())))
        let record = ChunkRecovery.recoverPart(stamp: "1795883878.653", format: .mp4, in: directory, logger: Logger(label: "test"))
        return (record, try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    @Test("a trun whose data offset points before the file is damage, not a trap (the guided run's finding)")
    func negativeDataOffset() throws {
        let bytes = try Self.input("mp4-boxes", "negative-data-offset")
        let defaults = try FragmentSamples.Defaults(movie: bytes)
        var samples = FragmentSamples(sampleLimit: bytes.count)
        var refused = 0
        for moof in try ChildBox.children(of: bytes, in: 0..<bytes.count, parent: "file") where moof.type == "moof" {
            do {
                try samples.add(moof: Array(bytes[moof.range]), at: UInt64(moof.range.lowerBound), defaults: defaults)
            } catch {
                refused += 1
            }
        }
        #expect(refused >= 1)
        let directory = try TestFiles.makeDirectory("fuzz-regression")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("part").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(try Self.input("part-file", "negative-data-offset").dropFirst())))
        #expect(throws: FinishingError.self) { try ChunkFinisher.finish(path: path, firstFrameEpochMs: 1_700_000_000_000) }
    }

    @Test("libav may not ask for more than the node's bound in one allocation, so a 1.9 KB part cannot make its mov index 855 MB; recovery removes that part")
    func libavAllocationsAreBounded() throws {
        LibavAllocationLimit.install()
        let tooLarge = av_malloc(LibavAllocationLimit.bytes + 1)
        defer { av_free(tooLarge) }
        #expect(tooLarge == nil)
        let frameSized = av_malloc(12 << 20)
        defer { av_free(frameSized) }
        #expect(frameSized != nil)

        let (record, left) = try Self.recoverPart("libav-index-855mb")
        #expect(record == nil)
        #expect(left.isEmpty)
    }

    @Test(
        "part files the finisher must refuse: a duration past 64 bits in the movie's time scale (it trapped), a second ftyp before the moov (finished, it would not read as finished)",
        arguments: ["duration-times-scale-overflow", "second-ftyp-finished-unreadable"])
    func partsTheFinisherRefuses(finding: String) throws {
        let directory = try TestFiles.makeDirectory("fuzz-regression")
        defer { try? FileManager.default.removeItem(at: directory) }
        let part = try Self.partFile(finding, in: directory)
        #expect(throws: FinishingError.self) {
            try ChunkFinisher.finish(path: part.path, firstFrameEpochMs: 1_700_000_000_000, keepingIntactPrefix: part.keepingIntactPrefix)
        }
        #expect(try !ChunkFinisher.isFinished(path: part.path))
    }

    /// Writes part-file's input `name` as a file (its first byte picks the mode: whether a
    /// torn tail is cut off); returns the file's path and that mode.
    static func partFile(_ name: String, in directory: URL) throws -> (path: String, keepingIntactPrefix: Bool) {
        let input = try Self.input("part-file", name)
        let path = directory.appendingPathComponent("part").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(input.dropFirst())))
        return (path, input[0] & 1 == 1)
    }

    @Test("a recovered part whose time stamps run backwards takes its times from its name and packets: a chunk never ends before it starts")
    func timeStampsOutOfOrder() throws {
        let (record, left) = try Self.recoverPart("time-stamps-out-of-order")
        let recovered = try #require(record)
        #expect(recovered.frameCount > 0)
        #expect(recovered.startMs == 1_795_883_878_653)
        #expect(recovered.startMs <= recovered.endMs)
        #expect(left.sorted() == [recovered.fileName, ChunkNaming.timestampsFileName(stamp: "1795883878.653")].sorted())
        #expect(ChunkFrameTimes.offset([0, 40, 80], by: Int64.max - 50) == nil)
        #expect(ChunkFrameTimes.offset([0, 40], by: 1000) == [1000, 1040])
    }
}
