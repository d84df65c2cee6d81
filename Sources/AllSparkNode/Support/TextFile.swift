import Foundation

/// Reads a whole text file. Not `String(contentsOfFile:)`: Foundation's reader leaks a
/// 4 KiB buffer on every file whose size reads as 0 (an empty file, anything in /proc),
/// which the fuzz targets' leak checker found (Tests/Fuzz/regressions/timestamps-file).
public enum TextFile {
    public struct Unreadable: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "cannot read \(path): \(reason)" }
    }

    public static func read(_ path: String) throws(Unreadable) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw Unreadable(path: path, reason: "\(error)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw Unreadable(path: path, reason: "not UTF-8 text") }
        return text
    }
}
