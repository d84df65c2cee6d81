import Foundation

/// The store's holds, `.allspark-holds.json` in the store directory, written as the runtime
/// configuration is: a synced temporary file renamed over the old one and the directory
/// synced, so a crash or power cut leaves the old list or the new one. A file that is there
/// but does not parse is never read as "no holds": that would let the ring take held footage.
public struct HoldsFile: Sendable {
    public static let fileName = ".allspark-holds.json"
    static let format = "allspark-holds/1"
    public let path: String

    public init(storeDirectory: String) {
        path = URL(fileURLWithPath: storeDirectory).appendingPathComponent(Self.fileName).path
    }

    private struct Contents: Codable {
        let format: String
        let holds: [Hold]
    }

    /// The holds on file; none when there is no file (a store that never had a hold).
    public func read() throws(HoldError) -> [Hold] {
        guard let data = FileManager.default.contents(atPath: path) else {
            guard access(path, F_OK) == 0 else { return [] }
            throw .unreadableFile(path: path, reason: "it cannot be read: \(String(cString: strerror(errno)))")
        }
        do {
            return try Self.decode(data)
        } catch {
            throw .unreadableFile(path: path, reason: error.description)
        }
    }

    /// The holds in `data`; throws why it is not a whole holds list.
    static func decode(_ data: Data) throws(DecodingProblem) -> [Hold] {
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: data)
        } catch {
            throw DecodingProblem(description: data.isEmpty ? "it is empty" : "it is not a whole holds list (\(data.count) bytes that do not parse)")
        }
        guard contents.format == Self.format else {
            throw DecodingProblem(description: "its format is \(contents.format), this node reads \(Self.format)")
        }
        return contents.holds
    }

    struct DecodingProblem: Error, CustomStringConvertible {
        let description: String
    }

    static func encode(_ holds: [Hold]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(Contents(format: Self.format, holds: holds))
    }

    public func write(_ holds: [Hold]) throws(HoldError) {
        do {
            let data = try Self.encode(holds)
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let temporary = path + ".tmp"
            _ = try DurableFile.write(String(decoding: data, as: UTF8.self) + "\n", to: temporary)
            try DurableFile.rename(temporary, to: path)
            DurableFile.syncDirectory(directory)
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    /// Identifies the file's current version cheaply, so a reader knows when to read it again.
    func version() -> FileVersion? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileVersion(inode: UInt64(info.st_ino), size: Int64(info.st_size), modifiedNs: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    struct FileVersion: Equatable {
        let inode: UInt64
        let size: Int64
        let modifiedNs: Int64
    }
}
