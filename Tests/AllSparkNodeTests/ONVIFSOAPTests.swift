import Foundation
import Testing
@testable import AllSparkNode

/// The SOAP reader: what it reads, and what it refuses before it costs anything.
struct ONVIFSOAPTests {
    static func envelope(_ body: String, header: String = "") -> [UInt8] {
        Array(
            ("<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"http://www.w3.org/2003/05/soap-envelope\">"
                + (header.isEmpty ? "" : "<s:Header>\(header)</s:Header>") + "<s:Body>\(body)</s:Body></s:Envelope>").utf8)
    }

    @Test("a request's operation and its UsernameToken are read")
    func readsOperationAndToken() throws {
        let header = """
            <Security xmlns="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"><UsernameToken>\
            <Username>admin</Username><Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest">abc=</Password>\
            <Nonce>bm9uY2U=</Nonce><Created xmlns="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd">2026-01-01T00:00:00Z</Created>\
            </UsernameToken></Security>
            """
        let request = try SOAPRequest.parse(Self.envelope(
            "<GetStreamUri xmlns=\"http://www.onvif.org/ver10/media/wsdl\"><ProfileToken>main</ProfileToken></GetStreamUri>", header: header))
        #expect(request.operationName == "GetStreamUri")
        #expect(request.operation.namespace == SOAPNamespace.media)
        #expect(request.operation.child("ProfileToken")?.trimmedText == "main")
        let token = try #require(request.usernameToken)
        #expect(token.username == "admin" && token.isDigest && token.nonce == "bm9uY2U=" && token.created == "2026-01-01T00:00:00Z")
    }

    @Test("a DTD is refused: external entities (XXE) and nested ones (billion laughs)")
    func refusesDTDs() {
        let xxe = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><s:Envelope xmlns:s=\"http://www.w3.org/2003/05/soap-envelope\"><s:Body><a>&x;</a></s:Body></s:Envelope>"
        var laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
        for level in 1...9 { laughs += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1 == 0 ? "" : String(level - 1));", count: 10) + "\">" }
        laughs += "]><lolz>&lol9;</lolz>"
        for document in [xxe, laughs] {
            #expect(throws: XMLReader.Failure.doctype) { try XMLReader().parse(Array(document.utf8)) }
            #expect(throws: SOAPFault.self) { try SOAPRequest.parse(Array(document.utf8)) }
        }
    }

    @Test("limits: size, depth; malformed documents and non-envelopes are faults")
    func limits() {
        let big = Array(repeating: UInt8(ascii: " "), count: XMLReader().maximumBytes + 1)
        #expect(throws: XMLReader.Failure.tooLarge(limit: XMLReader().maximumBytes)) { try XMLReader().parse(big) }
        let deep = String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40)
        #expect(throws: XMLReader.Failure.tooDeep(limit: 32)) { try XMLReader().parse(Array(deep.utf8)) }
        for bad in ["", "<a>", "<a></b>", "not xml", "<a xmlns:p='x'><p:b></a>", "\u{0}\u{1}"] {
            #expect(throws: XMLReader.Failure.malformed) { try XMLReader().parse(Array(bad.utf8)) }
        }
        #expect(throws: SOAPFault.self) { try SOAPRequest.parse(Array("<Envelope><Body><X/></Body></Envelope>".utf8)) }
        #expect(throws: SOAPFault.self) { try SOAPRequest.parse(Self.envelope("")) }
    }

    @Test("a Fault is a SOAP 1.2 envelope with its code, subcode and escaped reason")
    func faultEnvelope() throws {
        let xml = SOAPFault.actionNotSupported("Set<&>").envelope
        let root = try XMLReader().parse(Array(xml.utf8))
        let fault = try #require(root.descendant("Fault"))
        #expect(fault.child("Code")?.child("Value")?.trimmedText == "env:Receiver")
        #expect(fault.child("Code")?.child("Subcode")?.child("Value")?.trimmedText == "ter:ActionNotSupported")
        #expect(fault.child("Reason")?.child("Text")?.trimmedText.hasPrefix("Set<&>") == true)
    }

    @Test("addresses come from the Host header; hosts a URL cannot carry are refused")
    func endpointFromHost() {
        let endpoint = ONVIFEndpoint(authority: "192.168.1.5:8090", tls: false, defaultPort: 1, rtspPort: 8554)
        #expect(endpoint?.deviceService == "http://192.168.1.5:8090/onvif/device_service")
        #expect(endpoint?.streamURI == "rtsp://192.168.1.5:8554/live")
        #expect(ONVIFEndpoint(authority: "[fd00::1]:80", tls: true, defaultPort: 1, rtspPort: 0)?.mediaService == "https://[fd00::1]:80/onvif/media_service")
        #expect(ONVIFEndpoint(authority: "cam.local", tls: false, defaultPort: 8090, rtspPort: 0)?.snapshotURI == "http://cam.local:8090/onvif/snapshot.jpg")
        for bad in [nil, "", "a b", "x@y", "h:99999", "h:1:2", "<x>", "h/path"] {
            #expect(ONVIFEndpoint(authority: bad, tls: false, defaultPort: 1, rtspPort: 1) == nil)
        }
    }
}
