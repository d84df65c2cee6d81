import Foundation
import Logging
import Testing
@testable import AllSparkNode

/// The device and media services' answers, and WS-Discovery's, read back as XML.
struct ONVIFServiceTests {
    static let facts = ONVIFDeviceFacts(
        identity: NodeIdentity(id: "0a1b2c3d-0000-4000-8000-000000000001", name: "cam 1"), firmwareVersion: NodeVersion.current,
        video: ONVIFVideoSettings(width: 1280, height: 720, fps: 30, bitrateKbps: 2000, gopLength: 30), clockSynchronized: true,
        hostname: "node1", user: "admin")
    static let endpoint = ONVIFEndpoint(scheme: "http", host: "10.0.0.5", port: 8090, rtspPort: 8554)

    static func request(_ operation: String, namespace: String, inner: String = "") throws -> SOAPRequest {
        try SOAPRequest.parse(ONVIFSOAPTests.envelope("<\(operation) xmlns=\"\(namespace)\">\(inner)</\(operation)>"))
    }

    static func answer(_ service: some ONVIFService, _ operation: String, namespace: String, inner: String = "") throws -> XMLNode {
        let body = try service.respond(to: try request(operation, namespace: namespace, inner: inner), at: endpoint)
        return try XMLReader().parse(Array(SOAPResponse.envelope(body: body).utf8))
    }

    @Test("device information, capabilities and the clock")
    func device() throws {
        let interfaces = [NetworkInterfaceInfo(name: "eth0", up: true, mtu: 1500, ipv4: [("10.0.0.5", 24)])]
        let service = DeviceService(facts: Self.facts, interfaces: { interfaces })
        let information = try Self.answer(service, "GetDeviceInformation", namespace: SOAPNamespace.device)
        #expect(information.descendant("SerialNumber")?.text == Self.facts.identity.id)
        #expect(information.descendant("FirmwareVersion")?.text == NodeVersion.current)
        let capabilities = try Self.answer(service, "GetCapabilities", namespace: SOAPNamespace.device, inner: "<Category>All</Category>")
        #expect(capabilities.descendant("Media")?.child("XAddr")?.text == "http://10.0.0.5:8090/onvif/media_service")
        let clock = try Self.answer(service, "GetSystemDateAndTime", namespace: SOAPNamespace.device)
        #expect(clock.descendant("DateTimeType")?.text == "NTP")
        #expect(Int(clock.descendant("Year")?.text ?? "") ?? 0 >= 2024)
        let network = try Self.answer(service, "GetNetworkInterfaces", namespace: SOAPNamespace.device)
        // Each instance its own address (Home Assistant's key), made from the store's identity.
        let address = try #require(network.descendant("HwAddress")?.text)
        #expect(address == Self.facts.hardwareAddress(forInterface: "eth0"))
        #expect(address.split(separator: ":").count == 6 && (UInt8(address.prefix(2), radix: 16) ?? 0) & 0x03 == 0x02)
        let other = ONVIFDeviceFacts(
            identity: NodeIdentity(id: "0a1b2c3d-0000-4000-8000-000000000002", name: "cam 2"), firmwareVersion: NodeVersion.current,
            video: Self.facts.video, clockSynchronized: true, hostname: "node1", user: "admin")
        #expect(other.hardwareAddress(forInterface: "eth0") != address)
        #expect(network.descendant("PrefixLength")?.text == "24")
        let scopes = try Self.answer(service, "GetScopes", namespace: SOAPNamespace.device)
        #expect(scopes.children.first?.children.first?.children.contains { $0.descendant("ScopeItem")?.text == "onvif://www.onvif.org/name/cam%201" } == true)
        for refused in ["SetSystemDateAndTime", "SystemReboot", "Unknown"] {
            #expect(throws: SOAPFault.actionNotSupported(refused)) { try Self.answer(service, refused, namespace: SOAPNamespace.device) }
        }
    }

    @Test("the one profile: H.264 at the real size, rate, bitrate and GOP; stream and snapshot URIs from the Host")
    func media() throws {
        let service = MediaService(video: Self.facts.video)
        let profiles = try Self.answer(service, "GetProfiles", namespace: SOAPNamespace.media)
        let encoder = try #require(profiles.descendant("VideoEncoderConfiguration"))
        #expect(encoder.child("Encoding")?.text == "H264")
        #expect(encoder.descendant("Width")?.text == "1280" && encoder.descendant("Height")?.text == "720")
        #expect(encoder.descendant("FrameRateLimit")?.text == "30" && encoder.descendant("BitrateLimit")?.text == "2000")
        #expect(encoder.descendant("GovLength")?.text == "30")
        let stream = try Self.answer(service, "GetStreamUri", namespace: SOAPNamespace.media, inner: "<ProfileToken>main</ProfileToken>")
        #expect(stream.descendant("Uri")?.text == "rtsp://10.0.0.5:8554/live")
        let snapshot = try Self.answer(service, "GetSnapshotUri", namespace: SOAPNamespace.media, inner: "<ProfileToken>main</ProfileToken>")
        #expect(snapshot.descendant("Uri")?.text == "http://10.0.0.5:8090/onvif/snapshot.jpg")
        #expect(throws: SOAPFault.self) { try Self.answer(service, "GetStreamUri", namespace: SOAPNamespace.media, inner: "<ProfileToken>x</ProfileToken>") }
        #expect(ONVIFVideoSettings(config: NodeConfig(), frameWidth: nil, frameHeight: nil).gopLength == 30)
    }

    @Test("Media2: configurations only of the types asked for, VideoEncoder2 at the real size, the stream URI by transport")
    func media2() throws {
        let service = Media2Service(
            video: ONVIFVideoSettings(width: 1280, height: 720, fps: 29.97, bitrateKbps: 2000, gopLength: 30, signed: true))
        let bare = try Self.answer(service, "GetProfiles", namespace: SOAPNamespace.media2)
        #expect(bare.descendant("Profiles")?.attributes["token"] == "main" && bare.descendant("Configurations") == nil)
        let encoderOnly = try Self.answer(service, "GetProfiles", namespace: SOAPNamespace.media2, inner: "<Type>VideoEncoder</Type>")
        #expect(encoderOnly.descendant("VideoEncoder") != nil && encoderOnly.descendant("VideoSource") == nil)
        let all = try Self.answer(service, "GetProfiles", namespace: SOAPNamespace.media2, inner: "<Token>main</Token><Type>All</Type>")
        let encoder = try #require(all.descendant("VideoEncoder"))
        #expect(encoder.attributes["GovLength"] == "30" && encoder.attributes["Profile"] == "High" && encoder.attributes["Signed"] == "true")
        #expect(encoder.child("Encoding")?.text == "H264" && encoder.descendant("Width")?.text == "1280")
        #expect(encoder.descendant("FrameRateLimit")?.text == "29.97" && encoder.descendant("BitrateLimit")?.text == "2000")
        #expect(all.descendant("VideoSource")?.child("SourceToken")?.text == MediaProfile.sourceToken)
        let options = try Self.answer(service, "GetVideoEncoderConfigurationOptions", namespace: SOAPNamespace.media2)
        #expect(options.descendant("Options")?.attributes["GovLengthRange"] == "30 30")
        #expect(options.descendant("Options")?.attributes["SigningSupported"] == "true")
        let unsigned = Media2Service(video: ONVIFVideoSettings(width: 1280, height: 720, fps: 30, bitrateKbps: 2000, gopLength: 30))
        let unsignedEncoder = try Self.answer(unsigned, "GetProfiles", namespace: SOAPNamespace.media2, inner: "<Type>VideoEncoder</Type>")
        #expect(unsignedEncoder.descendant("VideoEncoder")?.attributes["Signed"] == "false")
        for transport in ["RtspUnicast", "RTSP"] {
            let stream = try Self.answer(
                service, "GetStreamUri", namespace: SOAPNamespace.media2, inner: "<Protocol>\(transport)</Protocol><ProfileToken>main</ProfileToken>")
            #expect(stream.descendant("Uri")?.text == "rtsp://10.0.0.5:8554/live")
        }
        for refused in ["<Protocol>RtspMulticast</Protocol><ProfileToken>main</ProfileToken>", "<Protocol>RTSP</Protocol><ProfileToken>x</ProfileToken>"] {
            #expect(throws: SOAPFault.self) { try Self.answer(service, "GetStreamUri", namespace: SOAPNamespace.media2, inner: refused) }
        }
        #expect(throws: SOAPFault.self) { try Self.answer(service, "GetProfiles", namespace: SOAPNamespace.media2, inner: "<Token>other</Token>") }
        let snapshot = try Self.answer(service, "GetSnapshotUri", namespace: SOAPNamespace.media2, inner: "<ProfileToken>main</ProfileToken>")
        #expect(snapshot.descendant("Uri")?.text == "http://10.0.0.5:8090/onvif/snapshot.jpg")
        #expect(throws: SOAPFault.actionNotSupported("CreateProfile")) { try Self.answer(service, "CreateProfile", namespace: SOAPNamespace.media2) }
        let services = try Self.answer(
            DeviceService(facts: Self.facts, interfaces: { [] }), "GetServices", namespace: SOAPNamespace.device, inner: "<IncludeCapability>false</IncludeCapability>")
        let media2 = services.descendant("GetServicesResponse")?.children.first { $0.child("Namespace")?.text == SOAPNamespace.media2 }
        #expect(media2?.child("XAddr")?.text == "http://10.0.0.5:8090/onvif/media2_service")
    }

    @Test("a Probe for the node's type gets a ProbeMatch relating to it; others, and malformed datagrams, none")
    func discovery() throws {
        let responder = WSDiscoveryResponder(
            identity: Self.facts.identity, scopes: ONVIFDeviceFacts.scopes(name: "cam 1"), tls: false, logger: Logger(label: "test"))
        let folder = FuzzCorpusTests.fuzz.appendingPathComponent("seeds/ws-discovery")
        let probe = Array(try Data(contentsOf: folder.appendingPathComponent("probe-nvt.xml")))
        #expect(responder.reply(to: probe, from: "10.0.0.9", interfaceIndex: nil, nowMs: 0) == nil, "no port known yet")
        responder.serverStarted(port: 8090)
        let reply = try #require(responder.reply(to: probe, from: "10.0.0.9", interfaceIndex: nil, nowMs: 0))
        let root = try XMLReader().parse(Array(reply.utf8))
        #expect(root.descendant("RelatesTo")?.text == "urn:uuid:2f7e2f0a-0f3c-4c1e-9d1f-8f6d1c0b7a11")
        #expect(root.descendant("Address")?.text == "urn:uuid:\(Self.facts.identity.id)")
        #expect(root.descendant("Types")?.text == "dn:NetworkVideoTransmitter tds:Device")
        #expect(root.descendant("XAddrs")?.text.hasSuffix(":8090/onvif/device_service") == true)
        let hello = Array(try Data(contentsOf: folder.appendingPathComponent("hello-other.xml")))
        #expect(responder.reply(to: hello, from: "10.0.0.9", interfaceIndex: nil, nowMs: 0) == nil)
        #expect(responder.reply(to: Array("junk".utf8), from: "10.0.0.9", interfaceIndex: nil, nowMs: 0) == nil)
        #expect(responder.counters.malformed == 1)
        // Rate-limited: at most 5 replies a second to one source (one given above).
        let answered = (0..<10).filter { _ in responder.reply(to: probe, from: "10.0.0.9", interfaceIndex: nil, nowMs: 10) != nil }.count
        #expect(answered == 4 && responder.counters.limited == 6)
        #expect(WSDiscoveryMessage.matches(types: [], scopes: ["onvif://www.onvif.org/Profile"], own: ONVIFDeviceFacts.scopes(name: "x")))
        #expect(!WSDiscoveryMessage.matches(types: ["Printer"], scopes: [], own: []))
        #expect(!WSDiscoveryMessage.matches(types: [], scopes: ["onvif://www.onvif.org/Prof"], own: ONVIFDeviceFacts.scopes(name: "x")))
    }
}
