import AllSparkNode
import ArgumentParser
import Foundation
import Logging

struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive", abstract: "What the archive bucket holds of this node's chunks.",
        subcommands: [ArchiveStatusCommand.self, ArchiveVerifyCommand.self])

    /// Runs `body` with the archive as the node's config describes it, without opening the
    /// store (the node may be running), and closes the archive's connections after.
    static func withArchive(_ options: ConfigOptions, _ body: (ChunkArchive, NodeConfig) async throws -> Void) async throws {
        let (archive, config) = try open(options)
        do {
            try await body(archive, config)
        } catch {
            await archive.client.shutdown()
            throw error
        }
        await archive.client.shutdown()
    }

    private static func open(_ options: ConfigOptions) throws -> (ChunkArchive, NodeConfig) {
        let config = try options.load()
        guard config.archive.isEnabled else {
            throw ValidationError("the archive is off: set archive.endpoint and archive.bucket (config, ALLSPARK_ARCHIVE_* or flags of run)")
        }
        let store = URL(fileURLWithPath: config.storeDirectory)
        var logger = Logger(label: "allspark-node.archive")
        logger.logLevel = .warning
        let name = ClientIdentity.name(configured: config.uplink.name, storeDirectory: store)
        return (try ChunkArchive(settings: config.archive, nodeName: name, storeDirectory: store, logger: logger), config)
    }

    static func printJSON<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func iso(_ ms: Int64?) -> String {
        guard let ms else { return "-" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}

struct ArchiveStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "How much of the ring is archived, and what the bucket holds.")

    @OptionGroup var configOptions: ConfigOptions
    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        try await ArchiveCommand.withArchive(configOptions) { archive, config in
            let ring = try ChunkCatalog.read(directory: config.storeDirectory)
            let summary = try await ArchiveAudit.summary(archive: archive, ring: ring)
            if json { return try ArchiveCommand.printJSON(summary) }
            print("archive: \(summary.bucket), prefix \(summary.prefix)")
            print("ring: \(summary.ringChunks) chunks, \(summary.ringChunksArchived) archived, \(summary.ringChunksWaiting) waiting"
                + (summary.oldestWaitingMs.map { " (oldest from \(ArchiveCommand.iso($0)))" } ?? ""))
            print("bucket: \(summary.archivedChunks) chunks, \(ArchiveCommand.iso(summary.oldestArchivedMs)) to \(ArchiveCommand.iso(summary.newestArchivedMs))")
            let deleted = summary.deletedByAge
            if summary.maxAgeDays > 0 || deleted.chunksDeleted > 0 {
                print("deleted by age (archive.maxAgeDays \(summary.maxAgeDays)): \(deleted.chunksDeleted) chunks, \(deleted.bytesDeleted) bytes"
                    + (deleted.lastDeletionMs.map { "; last at \(ArchiveCommand.iso($0)): \(deleted.lastDeletionChunks) chunks, \(deleted.lastDeletionBytes) bytes (\(deleted.lastDeletedFiles.joined(separator: ", ")))" } ?? ""))
                if let error = deleted.lastPassError { print("last age deletion pass failed: \(error)") }
            }
        }
    }
}

struct ArchiveVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every chunk of [--from, --to) against the bucket: archived, missing, or differing. Exits 1 when any is not archived whole.")

    @OptionGroup var configOptions: ConfigOptions
    @Option(help: "Range start: epoch seconds or ISO 8601.")
    var from: String?
    @Option(help: "Range end (exclusive): epoch seconds or ISO 8601.")
    var to: String?
    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let startMs = try from.map { try ChunksCommand.parseTime($0, option: "--from") } ?? 0
        let endMs = try to.map { try ChunksCommand.parseTime($0, option: "--to") } ?? Int64(253_402_300_799_000)
        guard startMs <= endMs else { throw ValidationError("--from must not be after --to") }
        var problems: [ArchiveAudit.Entry] = []
        try await ArchiveCommand.withArchive(configOptions) { archive, config in
            let ring = try ChunkCatalog.read(directory: config.storeDirectory)
            let entries = try await ArchiveAudit.verify(
                archive: archive, ring: ring, storeDirectory: URL(fileURLWithPath: config.storeDirectory), startMs: startMs, endMs: endMs)
            problems = entries.filter(\.isProblem)
            if json { return try ArchiveCommand.printJSON(entries) }
            for entry in problems {
                switch entry.finding {
                case .archived: break
                case .missing(let keys): print("missing  \(entry.file) (\(entry.location)): \(keys.joined(separator: ", "))")
                case .differs(let keys): print("differs  \(entry.file) (\(entry.location)): \(keys.joined(separator: ", "))")
                }
                if entry.signature?.status == .invalid {
                    print("invalid  \(entry.file) (\(entry.location)): its media signatures do not verify (allspark-node verify FILE)")
                }
            }
            let unarchived = entries.filter(\.finding.isProblem).count
            let invalid = entries.filter { $0.signature?.status == .invalid }.count
            print("\(entries.count) chunks checked: \(entries.count - unarchived) archived, \(unarchived) not archived whole, \(invalid) with invalid signatures")
        }
        if !problems.isEmpty { throw ExitCode(1) }
    }
}
