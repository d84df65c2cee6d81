import Foundation
import Synchronization

/// `.allspark-archive.jsonl` in the store: which chunks this node has archived, one JSON
/// object per line. Each line names the bucket it is about, so pointing the node at
/// another bucket starts afresh. (Multipart uploads a crash leaves open are found by
/// listing the bucket instead: one can be created by a request whose answer never came.)
///
/// A line lost in a crash costs nothing but a check: a chunk the journal does not list is
/// compared with the bucket (HEAD, size and checksum) before anything is sent again.
final class ArchiveJournal: Sendable {
    static let fileName = ".allspark-archive.jsonl"

    struct Entry: Codable, Equatable {
        var target: String
        var archived: String
    }

    let path: String
    let target: String
    /// Lines appended between compactions: a line is about 80 bytes outside the store's cap,
    /// so a node that runs for months rewrites the journal now and then, not only at start.
    let linesBetweenCompactions: Int
    private let appendedSinceCompaction = Atomic<Int>(0)

    /// - Parameter target: the bucket's identity, `endpoint/bucket/prefix`.
    init(storeDirectory: URL, target: String, linesBetweenCompactions: Int = 1000) {
        path = storeDirectory.appendingPathComponent(Self.fileName).path
        self.target = target
        self.linesBetweenCompactions = linesBetweenCompactions
    }

    var isDueForCompaction: Bool { appendedSinceCompaction.load(ordering: .relaxed) >= linesBetweenCompactions }

    /// The chunks archived to this target; unreadable lines (a torn last write) are skipped.
    func archivedStamps() -> Set<String> {
        guard let text = try? TextFile.read(path) else { return [] }
        let decoder = JSONDecoder()
        var stamps: Set<String> = []
        for line in text.split(separator: "\n") {
            guard let entry = try? decoder.decode(Entry.self, from: Data(line.utf8)), entry.target == target else { continue }
            stamps.insert(entry.archived)
        }
        return stamps
    }

    func recordArchived(stamp: String) throws { try append(Entry(target: target, archived: stamp)) }

    /// Rewrites the journal with only the chunks still in the store that are archived (the
    /// rest can no longer be sent twice), so it does not grow for months.
    func compact(keeping stamps: Set<String>) throws {
        let lines = try archivedStamps().intersection(stamps).sorted().map { try line(Entry(target: target, archived: $0)) }
        let temporary = path + ".tmp"
        _ = try DurableFile.write(lines.joined(), to: temporary, mode: 0o600)
        try DurableFile.rename(temporary, to: path)
        appendedSinceCompaction.store(0, ordering: .relaxed)
    }

    private func line(_ entry: Entry) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(entry), as: UTF8.self) + "\n"
    }

    private func append(_ entry: Entry) throws {
        let bytes = Array(try line(entry).utf8)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DurableFile.Failure(operation: "opening", path: path, code: errno) }
        defer { close(descriptor) }
        // One write of one short line: appends from this process never interleave.
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress!, $0.count) }
        guard written == bytes.count else { throw DurableFile.Failure(operation: "appending to", path: path, code: errno) }
        guard fdatasync(descriptor) == 0 else { throw DurableFile.Failure(operation: "syncing", path: path, code: errno) }
        appendedSinceCompaction.add(1, ordering: .relaxed)
    }
}
