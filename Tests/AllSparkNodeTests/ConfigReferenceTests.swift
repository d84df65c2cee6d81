import Foundation
import Testing
@testable import AllSparkNode

/// docs/reference/config.md against the code's key table, so the reference cannot drift:
/// one row per key (`| \`key\` | \`default\` | \`ALLSPARK_...\` | yes or restart | allowed | what |`).
struct ConfigReferenceTests {
    struct Row {
        let key: String
        let defaultValue: String
        let environmentName: String
        let whileRunning: String
        let allowed: String
    }

    static let referencePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/reference/config.md").path

    /// The key rows of the page, in order: table lines whose first cell is a code span.
    static func rows() throws -> [Row] {
        let text = try String(contentsOfFile: referencePath, encoding: .utf8)
        return try text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> Row? in
            guard line.hasPrefix("| `") else { return nil }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // "", key, default, environment, while running, allowed, what, ""
            guard cells.count == 8 else {
                throw ReferenceError(message: "a key row needs 6 cells: \(line)")
            }
            return Row(
                key: codeSpan(cells[1]), defaultValue: codeSpan(cells[2]), environmentName: codeSpan(cells[3]),
                whileRunning: cells[4], allowed: unescaped(cells[5]))
        }
    }

    struct ReferenceError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// `` `text` `` → `text`.
    static func codeSpan(_ cell: String) -> String {
        guard cell.count >= 2, cell.hasPrefix("`"), cell.hasSuffix("`") else { return cell }
        return String(cell.dropFirst().dropLast())
    }

    /// Markdown's backslash escapes (`\<` so that GitHub shows `<clientName>`) taken out.
    static func unescaped(_ cell: String) -> String {
        var result = ""
        var escaping = false
        for character in cell {
            if escaping {
                if !(character.isASCII && character.isPunctuation || character.isASCII && character.isSymbol) { result.append("\\") }
                result.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        if escaping { result.append("\\") }
        return result
    }

    @Test("every key of ConfigKeys.all has a row in docs/reference/config.md, and every row names a key")
    func sameKeys() throws {
        let documented = try Self.rows().map(\.key)
        let coded = ConfigKeys.all.map(\.name)
        let missing = coded.filter { !documented.contains($0) }
        let unknown = documented.filter { ConfigKeys.named($0) == nil }
        #expect(missing.isEmpty, "keys without a row in docs/reference/config.md: \(missing)")
        #expect(unknown.isEmpty, "rows in docs/reference/config.md for keys the code does not have: \(unknown)")
        let repeated = Dictionary(grouping: documented, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "keys with more than one row: \(repeated)")
    }

    @Test("each row's default, environment variable, restart rule and allowed values are the code's")
    func rowsMatchTheCode() throws {
        let defaults = NodeConfig()
        for row in try Self.rows() {
            guard let key = ConfigKeys.named(row.key) else { continue }
            #expect(row.defaultValue == key.value(in: defaults).description, "\(row.key): default")
            #expect(row.environmentName == key.environmentName, "\(row.key): environment variable")
            #expect(row.whileRunning == (key.appliesWhileRunning ? "yes" : "restart"), "\(row.key): while running")
            #expect(row.allowed == key.allowed, "\(row.key): allowed values")
        }
    }

    @Test("the page's rows can be read: the test would notice a row it cannot parse")
    func rowsParse() throws {
        let rows = try Self.rows()
        #expect(rows.count >= ConfigKeys.all.count)
        #expect(Self.unescaped(#"empty for \<clientName>/"#) == "empty for <clientName>/")
        #expect(Self.codeSpan("`ALLSPARK_FPS`") == "ALLSPARK_FPS")
    }
}
