/// How deep a YAML text nests, counted before Yams reads it: Yams builds its node tree by
/// recursion, a level a nesting, so a few kilobytes of `{{{{` overflow the stack (the
/// config-file fuzz target's finding). The node's config nests two levels; a text past
/// `maximumDepth` is refused with a clear error instead.
enum YAMLNesting {
    static let maximumDepth = 32

    /// An upper bound of the text's nesting: open flow brackets, plus the block levels that
    /// indentation and `-` / `?` markers open on each line. Brackets inside quoted text
    /// count too; a config with 32 of them in a value is refused, which no real one is.
    static func depth(of text: String) -> Int {
        var deepest = 0
        var flow = 0
        var indents: [Int] = []
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let bytes = Array(line.utf8)
            var column = 0
            while column < bytes.count, bytes[column] == UInt8(ascii: " ") { column += 1 }
            guard column < bytes.count, bytes[column] != UInt8(ascii: "#") else { continue }
            if flow == 0 {
                while let last = indents.last, last >= column { indents.removeLast() }
                indents.append(column)
            }
            // Each `-` or `?` followed by blanks or the line's end opens a level; YAML takes
            // any run of blanks after one (`?   ?` nests two: the fuzz target's second finding).
            var markers = 0
            var position = column
            while position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "?"),
                position + 1 == bytes.count || isBlank(bytes[position + 1])
            {
                markers += 1
                position += 1
                while position < bytes.count, isBlank(bytes[position]) { position += 1 }
            }
            for byte in bytes[position...] {
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    flow += 1
                    deepest = max(deepest, indents.count + markers + flow)
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    flow = max(0, flow - 1)
                default:
                    break
                }
            }
            deepest = max(deepest, indents.count + markers + flow)
        }
        return deepest
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
