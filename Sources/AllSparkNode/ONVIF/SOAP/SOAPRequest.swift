/// A SOAP 1.2 request as the ONVIF services read it: the body's one operation element and
/// the header's WS-Security UsernameToken, if any.
struct SOAPRequest: Sendable, Equatable {
    /// The operation's element: its local name is the operation (`GetProfiles`).
    let operation: XMLNode
    let usernameToken: UsernameToken?

    var operationName: String { operation.name }

    /// Reads `bytes` as an Envelope with a Body holding one element. Anything else is a
    /// client error the caller answers with a Fault.
    static func parse(_ bytes: [UInt8], reader: XMLReader = XMLReader()) throws(SOAPFault) -> SOAPRequest {
        let root: XMLNode
        do {
            root = try reader.parse(bytes)
        } catch {
            throw SOAPFault.malformed("\(error)")
        }
        guard root.name == "Envelope", root.namespace == SOAPNamespace.envelope || root.namespace == SOAPNamespace.envelope11 else {
            throw SOAPFault.malformed("the document is not a SOAP envelope")
        }
        guard let body = root.child("Body", namespace: root.namespace), let operation = body.children.first else {
            throw SOAPFault.malformed("the envelope has no operation in its Body")
        }
        let token = root.child("Header", namespace: root.namespace)?.descendant("UsernameToken").map(UsernameToken.init(element:))
        return SOAPRequest(operation: operation, usernameToken: token)
    }
}

/// WS-Security's UsernameToken, as received (the digest is checked by `UsernameTokenCheck`).
struct UsernameToken: Sendable, Equatable {
    var username: String
    var password: String
    /// `...#PasswordDigest` or `...#PasswordText` (absent: text).
    var passwordType: String
    var nonce: String
    var created: String

    var isDigest: Bool { passwordType.hasSuffix("#PasswordDigest") }
}

extension UsernameToken {
    init(element: XMLNode) {
        let password = element.child("Password")
        self.init(
            username: element.child("Username")?.trimmedText ?? "",
            password: password?.trimmedText ?? "",
            passwordType: password?.attributes["Type"] ?? "",
            nonce: element.child("Nonce")?.trimmedText ?? "",
            created: element.child("Created")?.trimmedText ?? "")
    }
}
