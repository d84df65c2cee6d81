import Foundation
import Testing
@testable import AllSparkNode

/// The `allspark-node` binary's subcommands, run as a user would.
@Suite(.serialized)
struct CommandLineTests {
    private func node(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try TestFiles.run(TestFiles.nodeExecutable.path, arguments)
    }

    @Test("chunks --json lists times, sizes and frame counts, and --from/--to select by overlap")
    func chunksListing() async throws {
        let input = try TestFiles.makeTestVideo(seconds: 4)
        let storeURL = try TestFiles.makeDirectory("cli")
        let harness = try RecorderHarness(config: RecorderHarness.config(source: input.path, store: storeURL), storeDirectory: storeURL)
        try await harness.run()
        let chunks = harness.store.allChunks

        let all = try node(["chunks", "--store", storeURL.path, "--json"])
        #expect(all.status == 0)
        let listed = try JSONSerialization.jsonObject(with: Data(all.output.utf8)) as! [[String: Any]]
        #expect(listed.map { $0["file"] as? String } == chunks.map(\.fileName))
        #expect(listed.map { ($0["frames"] as? NSNumber)?.intValue } == chunks.map(\.frameCount))
        #expect(listed.map { ($0["bytes"] as? NSNumber)?.int64Value } == chunks.map(\.chunkBytes))
        #expect(listed.map { ($0["startMs"] as? NSNumber)?.int64Value } == chunks.map(\.startMs))

        let from = String(format: "%.3f", Double(chunks[1].startMs) / 1000)
        let second = try node(["chunks", "--store", storeURL.path, "--json", "--from", from])
        let selected = try JSONSerialization.jsonObject(with: Data(second.output.utf8)) as! [[String: Any]]
        #expect(selected.map { $0["file"] as? String } == [chunks[1].fileName])

        let table = try node(["chunks", "--store", storeURL.path])
        #expect(table.status == 0 && table.output.contains(chunks[0].fileName) && table.output.contains("2 chunks"))
        let backwards = try node(["chunks", "--store", storeURL.path, "--from", "20", "--to", "10"])
        #expect(backwards.status != 0 && backwards.output.contains("--from"))
    }

    @Test("devices says clearly that there is no camera on a machine without one")
    func devicesWithoutCamera() throws {
        let hasCamera = TestFiles.fileNames(in: URL(fileURLWithPath: "/dev")).contains { $0.hasPrefix("video") }
        let result = try node(["devices"])
        #expect(result.status == 0)
        if hasCamera {
            #expect(result.output.contains("/dev/video"))
        } else {
            #expect(result.output.contains("no camera found"))
        }
    }

    @Test("run refuses bad flags and config values with the key and range, before touching the store")
    func runRejectsBadInput() throws {
        let storeURL = try TestFiles.makeDirectory("bad").appendingPathComponent("store")
        let badChunk = try node(["run", "--store", storeURL.path, "--chunk-ms", "10"])
        #expect(badChunk.status != 0)
        #expect(badChunk.output.contains("videoChunkDurationMs") && badChunk.output.contains("1000...3600000"))
        let badSize = try node(["run", "--store", storeURL.path, "--size", "big"])
        #expect(badSize.status != 0 && badSize.output.contains("--size"))
        let badFormat = try node(["run", "--store", storeURL.path, "--format", "avi"])
        #expect(badFormat.status != 0 && badFormat.output.contains("videoFormat"))
        #expect(!FileManager.default.fileExists(atPath: storeURL.path))
    }

    @Test("a missing source file is retried and reported while the node keeps running")
    func missingSourceIsRetried() throws {
        let storeURL = try TestFiles.makeDirectory("missing")
        let node = try NodeProcess(["run", "--source", "/nonexistent/clip.mp4", "--store", storeURL.path, "--privacy", "none"])
        // The second retry, however slowly a busy machine gets there (1 s, then 2 s, apart).
        let retried = NodeProcess.waitUntil(seconds: 120) { node.outputSoFar.contains("retrying in 2000 ms") }
        #expect(retried, "no second retry: \(node.outputSoFar)")
        #expect(node.process.isRunning, "the node keeps running without its source")
        node.signal(SIGTERM)
        let (status, output) = node.waitForExit()
        #expect(status == 0)
        #expect(output.contains("/nonexistent/clip.mp4") && output.contains("retrying in 1000 ms") && output.contains("retrying in 2000 ms"))
    }
}
