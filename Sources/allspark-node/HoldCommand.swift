import AllSparkNode
import ArgumentParser
import Foundation

struct HoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Keep a span of footage from the cap and the age limit (an evidence lock), list holds, release one.",
        discussion: """
            Works on the store directory, with the node running or not: a running node reads the holds file \
            before it deletes anything. Holds may take at most videoBufferMaxHeldShare of the cap.
            """,
        subcommands: [Add.self, List.self, Release.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Hold the footage in [START, END) (it may lie in the future).")

        @OptionGroup var configOptions: ConfigOptions
        @OptionGroup var span: HoldSpanOptions
        @Flag(help: "Print JSON instead of a sentence.")
        var json = false

        func run() throws {
            let config = try configOptions.load()
            let request = try span.request()
            let ledger = try HoldCommand.ledger(config)
            // Read before the lock: reading a large store's index takes a while, and a running
            // node waits for the lock before it evicts. A chunk evicted meanwhile only makes
            // the share check stricter.
            let stored = try ChunkCatalog.read(directory: config.storeDirectory)
            let placement = try HoldCommand.validated {
                try ledger.add(
                    request, chunks: { stored },
                    budget: { HoldShareBudget(capBytes: config.capBytes, share: config.videoBufferMaxHeldShare, recentChunks: $0) })
            }
            if json {
                print(try HoldCommand.render(HoldListing(placement.hold, heldBytes: placement.demand.recordedBytes, expectedBytes: placement.demand.expectedBytes, chunks: placement.chunks.count)))
            } else {
                print("held \(placement.hold.id): \(placement.chunks.count) chunks, \(placement.demand.recordedBytes) bytes now, \(placement.demand.expectedBytes) bytes expected for the part still to come")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the holds in force and what each keeps.")

        @OptionGroup var configOptions: ConfigOptions
        @Flag(help: "Print JSON instead of a table.")
        var json = false

        func run() throws {
            let config = try configOptions.load()
            let ledger = try HoldCommand.ledger(config)
            let holds = try HoldCommand.validated { try ledger.list() }
            let chunks = try ChunkCatalog.read(directory: config.storeDirectory)
            let budget = HoldShareBudget(capBytes: config.capBytes, share: config.videoBufferMaxHeldShare, recentChunks: chunks)
            let listings = holds.map { hold in
                let demand = budget.demand(of: [hold], chunks: chunks, nowMs: WallClock.nowMs())
                return HoldListing(hold, heldBytes: demand.recordedBytes, expectedBytes: demand.expectedBytes, chunks: chunks.filter(hold.covers).count)
            }
            if json {
                print(try HoldCommand.render(listings))
                return
            }
            guard !listings.isEmpty else {
                print("no holds on \(config.storeDirectory)")
                return
            }
            for listing in listings {
                print("\(listing.id)  \(listing.startISO) .. \(listing.endISO)  \(listing.chunks) chunks, \(listing.heldBytes) bytes  \(listing.reason)")
            }
        }
    }

    struct Release: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Release a hold: the ring and the age limit may take its chunks again.")

        @OptionGroup var configOptions: ConfigOptions
        @Argument(help: "The hold's id (see `hold list`).")
        var id: String

        func run() throws {
            let config = try configOptions.load()
            let ledger = try HoldCommand.ledger(config)
            let released = try HoldCommand.validated { try ledger.release(id: id) }
            print("released \(released.id) (\(released.reason))")
        }
    }

    static func ledger(_ config: NodeConfig) throws -> HoldLedger {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: config.storeDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("no store at \(config.storeDirectory) (name it with --store or --instance)")
        }
        return HoldLedger(directory: URL(fileURLWithPath: config.storeDirectory))
    }

    /// Hold errors as the command's own, so they print as one clear line.
    static func validated<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as HoldError {
            throw ValidationError(error.description)
        }
    }

    static func render(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// One hold as `hold list --json` prints it.
struct HoldListing: Encodable {
    let id: String
    let startMs: Int64
    let endMs: Int64
    let startISO: String
    let endISO: String
    let reason: String
    let createdMs: Int64
    let expiresMs: Int64?
    let heldBytes: Int64
    let expectedBytes: Int64
    let chunks: Int

    init(_ hold: Hold, heldBytes: Int64, expectedBytes: Int64, chunks: Int) {
        id = hold.id
        startMs = hold.startMs
        endMs = hold.endMs
        startISO = WallClock.iso8601(ms: hold.startMs)
        endISO = WallClock.iso8601(ms: hold.endMs)
        reason = hold.reason
        createdMs = hold.createdMs
        expiresMs = hold.expiresMs
        self.heldBytes = heldBytes
        self.expectedBytes = expectedBytes
        self.chunks = chunks
    }
}
