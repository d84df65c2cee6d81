import CLibXML2
import Foundation

/// One element of a parsed document: its local name, namespace URI, attributes (local name
/// to value), child elements and the text directly inside it.
struct XMLNode: Sendable, Equatable {
    var name: String
    var namespace: String
    var attributes: [String: String] = [:]
    var children: [XMLNode] = []
    var text: String = ""

    /// The first child named `name` (any namespace when `namespace` is nil).
    func child(_ name: String, namespace: String? = nil) -> XMLNode? {
        children.first { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    /// The first element named `name` at any depth below this one, this one first.
    func descendant(_ name: String) -> XMLNode? {
        if self.name == name { return self }
        for child in children {
            if let found = child.descendant(name) { return found }
        }
        return nil
    }

    var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// Reads outside XML (a SOAP request, a WS-Discovery datagram) with libxml2, refusing what
/// could make it costly or reach out: documents over `maximumBytes`, any DTD (so neither
/// external entities, XXE, nor nested entity expansion, the billion laughs, is ever
/// looked at), elements nested deeper than `maximumDepth`, and anything not well formed.
/// libxml2 reads with no network access (XML_PARSE_NONET) and substitutes no entities.
struct XMLReader: Sendable {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case doctype
        case tooDeep(limit: Int)
        case malformed

        var description: String {
            switch self {
            case .tooLarge(let limit): "the document is over \(limit) bytes"
            case .doctype: "documents with a DTD are refused"
            case .tooDeep(let limit): "elements are nested deeper than \(limit)"
            case .malformed: "the document is not well-formed XML"
            }
        }
    }

    var maximumBytes = 64 << 10
    var maximumDepth = 32
    var maximumElements = 4096

    /// libxml2's global state is set up once, before any thread parses.
    private static let initialised: Bool = {
        xmlInitParser()
        return true
    }()

    static let options = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOBLANKS.rawValue
            | XML_PARSE_NOCDATA.rawValue)

    func parse(_ bytes: [UInt8]) throws(Failure) -> XMLNode {
        guard bytes.count <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        guard !bytes.isEmpty else { throw .malformed }
        // A DTD is refused before libxml2 reads a byte of it.
        if Self.contains(bytes, "<!DOCTYPE") || Self.contains(bytes, "<!ENTITY") { throw .doctype }
        _ = Self.initialised
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                xmlReadMemory(start, Int32(buffer.count), "soap.xml", nil, Self.options)
            }
        }
        guard let document else { throw .malformed }
        defer { xmlFreeDoc(document) }
        if document.pointee.intSubset != nil || document.pointee.extSubset != nil { throw .doctype }
        guard let root = xmlDocGetRootElement(document) else { throw .malformed }
        var budget = maximumElements
        return try convert(root, depth: 1, budget: &budget)
    }

    private func convert(_ node: xmlNodePtr, depth: Int, budget: inout Int) throws(Failure) -> XMLNode {
        guard depth <= maximumDepth else { throw .tooDeep(limit: maximumDepth) }
        budget -= 1
        guard budget >= 0 else { throw .tooLarge(limit: maximumBytes) }
        var element = XMLNode(name: Self.string(node.pointee.name), namespace: Self.string(node.pointee.ns?.pointee.href))
        var attribute = node.pointee.properties
        while let current = attribute {
            let value = current.pointee.children.map { Self.string($0.pointee.content) } ?? ""
            element.attributes[Self.string(current.pointee.name)] = value
            attribute = current.pointee.next
        }
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                element.children.append(try convert(current, depth: depth + 1, budget: &budget))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                element.text += Self.string(current.pointee.content)
            case XML_ENTITY_REF_NODE:
                throw .doctype
            default:
                break
            }
            child = current.pointee.next
        }
        return element
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    private static func string(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String {
        string(UnsafePointer(pointer))
    }

    static func contains(_ bytes: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard bytes.count >= pattern.count else { return false }
        var index = 0
        while index <= bytes.count - pattern.count {
            if bytes[index] == pattern[0] && Array(bytes[index..<index + pattern.count]) == pattern { return true }
            index += 1
        }
        return false
    }
}
