import Foundation

/// WS-Discovery (2005/04, over WS-Addressing 2004/08) as an ONVIF device speaks it: reading
/// a datagram (a Probe is all the node answers), and writing ProbeMatches, Hello and Bye.
enum WSDiscoveryMessage: Equatable, Sendable {
    /// A Probe: its MessageID (the match's RelatesTo), and the Types and Scopes it asks for
    /// (local names of the types; scopes as written).
    case probe(messageID: String, types: [String], scopes: [String])
    /// Anything else well formed (Hello, Bye, ProbeMatches of other devices, Resolve): ignored.
    case other

    static let maximumBytes = 16 << 10
    static let reader = XMLReader(maximumBytes: maximumBytes, maximumDepth: 16, maximumElements: 256)
    static let probeAction = "http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe"

    /// Reads one datagram; throws when it is not a well-formed SOAP envelope (dropped and counted).
    static func parse(_ bytes: [UInt8]) throws -> WSDiscoveryMessage {
        let root = try reader.parse(bytes)
        guard root.name == "Envelope", root.namespace == SOAPNamespace.envelope || root.namespace == SOAPNamespace.envelope11,
            let body = root.child("Body", namespace: root.namespace)
        else { throw XMLReader.Failure.malformed }
        let header = root.child("Header", namespace: root.namespace)
        guard let probe = body.child("Probe", namespace: SOAPNamespace.discovery) else { return .other }
        let messageID = header?.child("MessageID", namespace: SOAPNamespace.addressing)?.trimmedText ?? ""
        guard !messageID.isEmpty, messageID.count <= 256 else { throw XMLReader.Failure.malformed }
        let types = words(probe.child("Types", namespace: SOAPNamespace.discovery)?.text).map { word in
            word.split(separator: ":").last.map(String.init) ?? word
        }
        let scopes = words(probe.child("Scopes", namespace: SOAPNamespace.discovery)?.text)
        return .probe(messageID: messageID, types: types, scopes: scopes)
    }

    static func words(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map(String.init)
    }

    /// Whether a Probe for `types` and `scopes` matches the node: no types or one of its
    /// own (NetworkVideoTransmitter, Device), and every scope a prefix of one of its own
    /// (WS-Discovery's default RFC 3986 rule, by whole path segments).
    static func matches(types: [String], scopes: [String], own: [String]) -> Bool {
        let typesMatch = types.isEmpty || types.allSatisfy { ["NetworkVideoTransmitter", "Device"].contains($0) }
        let scopesMatch = scopes.allSatisfy { asked in
            own.contains { have in have == asked || have.hasPrefix(asked.hasSuffix("/") ? asked : asked + "/") }
        }
        return typesMatch && scopesMatch
    }
}

/// What the node says about itself on discovery: its endpoint (`urn:uuid:` of the store),
/// types, scopes and device-service address.
struct WSDiscoveryAnnouncement: Sendable {
    let endpoint: String
    let scopes: [String]
    let metadataVersion: Int
    /// Per start of the node (AppSequence's InstanceId).
    let instanceID: Int

    static let types = "dn:NetworkVideoTransmitter tds:Device"
    static let multicastTo = "urn:schemas-xmlsoap-org:ws:2005:04:discovery"
    static let anonymous = "http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous"

    func probeMatches(relatesTo: String, xaddrs: String, messageNumber: Int) -> String {
        envelope(
            action: "ProbeMatches", to: Self.anonymous, relatesTo: relatesTo, messageNumber: messageNumber,
            body: "<d:ProbeMatches><d:ProbeMatch>\(description(xaddrs: xaddrs))</d:ProbeMatch></d:ProbeMatches>")
    }

    func hello(xaddrs: String, messageNumber: Int) -> String {
        envelope(action: "Hello", to: Self.multicastTo, relatesTo: nil, messageNumber: messageNumber, body: "<d:Hello>\(description(xaddrs: xaddrs))</d:Hello>")
    }

    func bye(messageNumber: Int) -> String {
        envelope(
            action: "Bye", to: Self.multicastTo, relatesTo: nil, messageNumber: messageNumber,
            body: "<d:Bye><wsa:EndpointReference><wsa:Address>\(XMLText.escape(endpoint))</wsa:Address></wsa:EndpointReference></d:Bye>")
    }

    private func description(xaddrs: String) -> String {
        "<wsa:EndpointReference><wsa:Address>\(XMLText.escape(endpoint))</wsa:Address></wsa:EndpointReference>"
            + "<d:Types>\(Self.types)</d:Types>" + XMLText.element("d:Scopes", scopes.joined(separator: " "))
            + XMLText.element("d:XAddrs", xaddrs) + "<d:MetadataVersion>\(metadataVersion)</d:MetadataVersion>"
    }

    private func envelope(action: String, to: String, relatesTo: String?, messageNumber: Int, body: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<env:Envelope xmlns:env=\"\(SOAPNamespace.envelope)\" xmlns:wsa=\"\(SOAPNamespace.addressing)\""
            + " xmlns:d=\"\(SOAPNamespace.discovery)\" xmlns:dn=\"\(SOAPNamespace.network)\" xmlns:tds=\"\(SOAPNamespace.device)\">"
            + "<env:Header><wsa:MessageID>urn:uuid:\(UUID().uuidString.lowercased())</wsa:MessageID>"
            + (relatesTo.map { XMLText.element("wsa:RelatesTo", $0) } ?? "")
            + XMLText.element("wsa:To", to) + "<wsa:Action>\(SOAPNamespace.discovery)/\(action)</wsa:Action>"
            + "<d:AppSequence InstanceId=\"\(instanceID)\" MessageNumber=\"\(messageNumber)\"/></env:Header>"
            + "<env:Body>\(body)</env:Body></env:Envelope>"
    }
}
