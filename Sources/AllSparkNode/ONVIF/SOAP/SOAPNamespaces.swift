/// The namespaces ONVIF's SOAP messages use, and the prefixes the node writes them with.
enum SOAPNamespace {
    static let envelope = "http://www.w3.org/2003/05/soap-envelope"
    static let envelope11 = "http://schemas.xmlsoap.org/soap/envelope/"
    static let device = "http://www.onvif.org/ver10/device/wsdl"
    static let media = "http://www.onvif.org/ver10/media/wsdl"
    static let media2 = "http://www.onvif.org/ver20/media/wsdl"
    static let schema = "http://www.onvif.org/ver10/schema"
    static let error = "http://www.onvif.org/ver10/error"
    static let network = "http://www.onvif.org/ver10/network/wsdl"
    static let addressing = "http://schemas.xmlsoap.org/ws/2004/08/addressing"
    static let discovery = "http://schemas.xmlsoap.org/ws/2005/04/discovery"
    static let security = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
    static let events = "http://www.onvif.org/ver10/events/wsdl"
    static let recording = "http://www.onvif.org/ver10/recording/wsdl"
    static let search = "http://www.onvif.org/ver10/search/wsdl"
    static let replay = "http://www.onvif.org/ver10/replay/wsdl"
    static let notification = "http://docs.oasis-open.org/wsn/b-2"
    static let topicTree = "http://docs.oasis-open.org/wsn/t-1"
    static let addressing2005 = "http://www.w3.org/2005/08/addressing"
    static let topics = "http://www.onvif.org/ver10/topics"
    static let xmlSchema = "http://www.w3.org/2001/XMLSchema"
    static let utility = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"

    /// The `xmlns:` declarations every response carries.
    static let declarations = [
        ("env", envelope), ("tds", device), ("trt", media), ("tr2", media2), ("tt", schema), ("ter", error), ("tev", events), ("trc", recording), ("tse", search), ("trp", replay),
        ("wsnt", notification), ("wstop", topicTree), ("wsa5", addressing2005), ("tns1", topics),
        ("tnsasp", EventTopic.ownNamespace), ("xs", xmlSchema),
    ].map { "xmlns:\($0.0)=\"\($0.1)\"" }.joined(separator: " ")
}

/// Text and attribute values escaped for XML.
enum XMLText {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// `<name>text</name>`, the text escaped.
    static func element(_ name: String, _ text: String) -> String {
        "<\(name)>\(escape(text))</\(name)>"
    }
}
