import Foundation

/// The few values the node reads from S3's XML answers (error codes, listing keys, upload
/// ids). S3 answers are flat, machine-written documents with fixed element names, so the
/// text between an element's tags is all that is needed, with XML's five entities decoded.
enum S3XML {
    static func values(of element: String, in xml: String) -> [String] {
        let open = "<\(element)>"
        let close = "</\(element)>"
        var found: [String] = []
        var rest = xml[...]
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            found.append(decode(String(rest[start.upperBound..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        return found
    }

    static func firstValue(of element: String, in xml: String) -> String? { values(of: element, in: xml).first }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
