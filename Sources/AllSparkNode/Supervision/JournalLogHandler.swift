import Foundation
import Logging

/// Log lines for journald when systemd runs the node with stderr connected to the journal
/// (`JOURNAL_STREAM`): one line per event, prefixed with its syslog priority (`<3>` error,
/// `<4>` warning, `<5>` notice, `<6>` info, `<7>` debug), which journald takes as the entry's
/// priority and strips. No time stamp (the journal keeps its own) and no terminal colours.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether stderr is the journal stream systemd named in `JOURNAL_STREAM` ("device:inode"),
    /// as systemd.exec(5) says to check: a redirected stderr keeps the plain format.
    public static func isStandardErrorTheJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }

    public func log(event: LogEvent) {
        var line = "<\(Self.priority(event.level))>\(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        Self.write(Self.oneLine(line) + "\n")
    }

    /// syslog(3) priorities.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }

    /// journald would split a message with newlines into entries of the default priority.
    static func oneLine(_ text: String) -> String {
        text.contains(where: \.isNewline) ? String(text.map { $0.isNewline ? " " : $0 }) : text
    }

    /// One write per line, so lines from several threads never interleave inside a line.
    private static func write(_ line: String) {
        var line = line
        line.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
