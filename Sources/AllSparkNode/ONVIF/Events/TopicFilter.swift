import Foundation

/// A subscription's TopicExpression in ONVIF's ConcreteSet dialect: alternatives joined by
/// `|`, each a topic path whose elements may carry a prefix, where `*` stands for any one
/// element and a trailing `//.` for the topic and everything under it. Prefixes are not
/// resolved against the request's namespaces: the node's topics differ by path alone.
struct TopicFilter: Sendable, Equatable {
    private struct Pattern: Equatable {
        var elements: [String]
        var subtree: Bool
    }

    private let patterns: [Pattern]

    /// nil for an expression no topic could ever match, so the client hears of it.
    init?(expression: String) {
        var patterns: [Pattern] = []
        for alternative in expression.split(separator: "|") {
            var text = alternative.trimmingCharacters(in: .whitespacesAndNewlines)
            var subtree = false
            if text.hasSuffix("//.") {
                subtree = true
                text.removeLast(3)
            }
            let elements = text.split(separator: "/", omittingEmptySubsequences: false).map { element in
                String(element.split(separator: ":").last ?? element)
            }
            guard !elements.isEmpty, !elements.contains(where: \.isEmpty) else { return nil }
            patterns.append(Pattern(elements: elements, subtree: subtree))
        }
        guard !patterns.isEmpty, patterns.count <= 64 else { return nil }
        self.patterns = patterns
    }

    func matches(_ topic: EventTopic) -> Bool {
        let path = topic.path
        return patterns.contains { pattern in
            guard pattern.subtree ? path.count >= pattern.elements.count : path.count == pattern.elements.count else { return false }
            return zip(pattern.elements, path).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }
}
