import AllSparkNode
import ArgumentParser
import Foundation

struct ChunksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chunks", abstract: "List the stored chunks, optionally those overlapping [--from, --to).")

    @OptionGroup var configOptions: ConfigOptions

    @Option(help: "Range start: epoch seconds (decimals allowed) or ISO 8601.")
    var from: String?
    @Option(help: "Range end (exclusive): epoch seconds or ISO 8601.")
    var to: String?
    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() throws {
        let config = try configOptions.load()
        let startMs = try from.map { try Self.parseTime($0, option: "--from") } ?? Int64.min
        let endMs = try to.map { try Self.parseTime($0, option: "--to") } ?? Int64.max
        guard startMs <= endMs else { throw ValidationError("--from must not be after --to") }
        let chunks = try ChunkCatalog.read(directory: config.storeDirectory)
            .filter { $0.overlaps(startMs: startMs, endMs: endMs) }
        let holds: [Hold]
        do {
            holds = try HoldLedger(directory: URL(fileURLWithPath: config.storeDirectory)).list()
        } catch let error as HoldError {
            throw ValidationError(error.description)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(chunks.map { ChunkListing($0, holds: holds.ids(covering: $0)) }), as: UTF8.self))
            return
        }
        if chunks.isEmpty {
            print("no chunks in \(config.storeDirectory)\(from != nil || to != nil ? " for that range" : "")")
            return
        }
        print("file                              start (UTC)               duration   frames        bytes")
        for chunk in chunks {
            let listing = ChunkListing(chunk, holds: holds.ids(covering: chunk))
            print(
                listing.file.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + listing.startISO.padding(toLength: 26, withPad: " ", startingAt: 0)
                    + String(format: "%7.2f s %8d %12lld", Double(listing.durationMs) / 1000, listing.frames, listing.bytes)
                    + (listing.holds.isEmpty ? "" : "  held by " + listing.holds.joined(separator: ", ")))
        }
        let total = chunks.reduce(Int64(0)) { $0 + $1.totalBytes }
        print("\(chunks.count) chunks, \(total) bytes")
    }

    static func parseTime(_ text: String, option: String) throws -> Int64 {
        if let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e12 { return Int64((seconds * 1000).rounded()) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) {
            return Int64((date.timeIntervalSince1970 * 1000).rounded())
        }
        throw ValidationError("\(option) must be epoch seconds or an ISO 8601 time, got \(text)")
    }
}

/// One chunk as `chunks --json` prints it.
struct ChunkListing: Encodable {
    let file: String
    let timestampsFile: String
    let startMs: Int64
    let endMs: Int64
    let startISO: String
    let durationMs: Int64
    let frames: Int
    let bytes: Int64
    let timestampsBytes: Int64
    /// Ids of the holds that keep the chunk; empty when the ring may take it.
    let holds: [String]

    init(_ chunk: ChunkRecord, holds: [String]) {
        file = chunk.fileName
        timestampsFile = chunk.timestampsFileName
        startMs = chunk.startMs
        endMs = chunk.endMs
        startISO = WallClock.iso8601(ms: chunk.startMs)
        durationMs = chunk.endMs - chunk.startMs
        frames = chunk.frameCount
        bytes = chunk.chunkBytes
        timestampsBytes = chunk.timestampsBytes
        self.holds = holds
    }
}
