import Foundation

/// The API tokens to reach nodes with: one for every node (`--token`), or one per node from
/// a file of `name: token` lines (a node's id works as its name; `#` starts a comment).
public struct FleetTokens: Sendable {
    public var shared: String?
    public var byNode: [String: String]

    public init(shared: String? = nil, byNode: [String: String] = [:]) {
        self.shared = shared
        self.byNode = byNode
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ text: String, file: String) throws -> [String: String] {
        var tokens: [String: String] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw Malformed(description: "\(file) line \(number + 1): expected `name: token`")
            }
            let name = trimmed[..<colon].trimmingCharacters(in: .whitespaces)
            let token = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !token.isEmpty else { throw Malformed(description: "\(file) line \(number + 1): expected `name: token`") }
            tokens[name] = token
        }
        return tokens
    }

    func token(for node: FleetNode) -> String? {
        byNode[node.name] ?? byNode[node.id] ?? shared
    }
}
