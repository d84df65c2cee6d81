/// A SOAP 1.2 Fault: `env:Sender` or `env:Receiver`, an ONVIF subcode (`ter:NotAuthorized`)
/// and a reason. Every fault is answered with HTTP 400: a request the node cannot serve is
/// never a 500.
struct SOAPFault: Error, Sendable, Equatable {
    enum Code: String, Sendable { case sender = "env:Sender", receiver = "env:Receiver" }

    let code: Code
    let subcode: String
    /// A second-level subcode, as some ONVIF faults have (`ter:ActionNotSupported` under `ter:...`).
    var detailSubcode: String? = nil
    let reason: String

    static func malformed(_ reason: String) -> SOAPFault {
        SOAPFault(code: .sender, subcode: "ter:WellFormed", reason: reason)
    }

    static func notAuthorized() -> SOAPFault {
        SOAPFault(code: .sender, subcode: "ter:NotAuthorized", reason: "Sender not Authorized")
    }

    static func actionNotSupported(_ operation: String) -> SOAPFault {
        SOAPFault(code: .receiver, subcode: "ter:ActionNotSupported", reason: "\(operation) is not supported by this device")
    }

    /// A stream or replay URI asked for while the node serves no RTSP.
    static let rtspOff = SOAPFault(
        code: .receiver, subcode: "ter:Action", detailSubcode: "ter:NoSuchService", reason: "RTSP is off on this node (server.rtspPort: 0)")

    static func invalidArgument(_ subcode: String, _ reason: String) -> SOAPFault {
        SOAPFault(code: .sender, subcode: "ter:InvalidArgVal", detailSubcode: subcode, reason: reason)
    }

    var envelope: String {
        var subcodes = "<env:Subcode><env:Value>\(subcode)</env:Value>"
        if let detailSubcode { subcodes += "<env:Subcode><env:Value>\(detailSubcode)</env:Value></env:Subcode>" }
        subcodes += "</env:Subcode>"
        let fault =
            "<env:Fault><env:Code><env:Value>\(code.rawValue)</env:Value>\(subcodes)</env:Code>"
            + "<env:Reason><env:Text xml:lang=\"en\">\(XMLText.escape(reason))</env:Text></env:Reason></env:Fault>"
        return SOAPResponse.envelope(body: fault)
    }
}

/// A response's envelope around its body's XML.
enum SOAPResponse {
    static let contentType = "application/soap+xml; charset=utf-8"

    static func envelope(body: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<env:Envelope \(SOAPNamespace.declarations)><env:Body>\(body)</env:Body></env:Envelope>"
    }
}
