import Foundation

/// `.allspark-archive.jsonl` in the store: which chunks this node has archived, and which
/// multipart uploads it started and has not ended, one JSON object per line. Each line
/// names the bucket it is about, so pointing the node at another bucket starts afresh.
///
/// A line lost in a crash costs nothing but a check: a chunk the journal does not list is
/// compared with the bucket (HEAD, size and checksum) before anything is sent again.
final class ArchiveJournal: Sendable {
    static let fileName = ".allspark-archive.jsonl"

    struct Entry: Codable, Equatable {
        var target: String
        var archived: String?
        var multipartKey: String?
        var multipartUploadId: String?
        var multipartEnded: String?
    }

    let path: String
    let target: String

    /// - Parameter target: the bucket's identity, `endpoint/bucket/prefix`.
    init(storeDirectory: URL, target: String) {
        path = storeDirectory.appendingPathComponent(Self.fileName).path
        self.target = target
    }

    struct Contents: Equatable {
        var archived: Set<String> = []
        /// Multipart uploads started and neither completed nor aborted: key and upload id.
        var openUploads: [(key: String, uploadId: String)] = []

        static func == (lhs: Contents, rhs: Contents) -> Bool {
            lhs.archived == rhs.archived && lhs.openUploads.map { "\($0.key) \($0.uploadId)" } == rhs.openUploads.map { "\($0.key) \($0.uploadId)" }
        }
    }

    /// What the journal says for this target; unreadable lines (a torn last write) are skipped.
    func read() -> Contents {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return Contents() }
        var contents = Contents()
        let decoder = JSONDecoder()
        for line in text.split(separator: "\n") {
            guard let entry = try? decoder.decode(Entry.self, from: Data(line.utf8)), entry.target == target else { continue }
            if let stamp = entry.archived { contents.archived.insert(stamp) }
            if let key = entry.multipartKey, let id = entry.multipartUploadId { contents.openUploads.append((key, id)) }
            if let ended = entry.multipartEnded { contents.openUploads.removeAll { $0.uploadId == ended } }
        }
        return contents
    }

    func recordArchived(stamp: String) throws { try append(Entry(target: target, archived: stamp)) }

    func recordMultipartStarted(key: String, uploadId: String) throws {
        try append(Entry(target: target, multipartKey: key, multipartUploadId: uploadId))
    }

    func recordMultipartEnded(uploadId: String) throws { try append(Entry(target: target, multipartEnded: uploadId)) }

    /// Rewrites the journal with only the chunks still in the store that are archived (the
    /// rest can no longer be sent twice) and the open uploads, so it does not grow for months.
    func compact(keeping stamps: Set<String>) throws {
        let contents = read()
        var lines: [String] = []
        for stamp in contents.archived.intersection(stamps).sorted() { lines.append(try line(Entry(target: target, archived: stamp))) }
        for upload in contents.openUploads {
            lines.append(try line(Entry(target: target, multipartKey: upload.key, multipartUploadId: upload.uploadId)))
        }
        let temporary = path + ".tmp"
        _ = try DurableFile.write(lines.joined(), to: temporary, mode: 0o600)
        try DurableFile.rename(temporary, to: path)
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
    }
}
