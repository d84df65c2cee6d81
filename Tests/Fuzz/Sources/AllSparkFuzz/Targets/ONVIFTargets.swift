import Foundation
import Logging
@testable import AllSparkNode

/// What reaches the node's ONVIF services from the LAN: SOAP requests, and WS-Discovery
/// datagrams (anyone on the segment may send them).
enum ONVIFTargets {
    static let facts = ONVIFDeviceFacts(
        identity: NodeIdentity(id: "00000000-0000-4000-8000-000000000000", name: "fuzz"), firmwareVersion: "0",
        video: ONVIFVideoSettings(width: 640, height: 360, fps: 15, bitrateKbps: 1000, gopLength: 15), clockSynchronized: false,
        hostname: "fuzz", user: "admin")
    static let endpoint = ONVIFEndpoint(scheme: "http", host: "192.0.2.1", port: 8090, rtspPort: 8554)

    /// A recording of two spans with a gap, for the recording and search services.
    static let recording = RecordingFacts(
        timeline: RecordingTimeline(
            chunks: [0, 2_000, 30_000].map { start in
                ChunkRecord(stamp: "\(start)", format: .mp4, startMs: start, endMs: start + 1_900, frameCount: 19, chunkBytes: 1, timestampsBytes: 1)
            }, recording: true),
        video: facts.video, name: "fuzz", identity: facts.identity.id, maximumRetentionMs: 0, nowMs: 60_000)

    /// A SOAP request read, its UsernameToken checked, then answered by the device, media,
    /// media2, event, recording and search services (a PullPoint's termination time and topic filter,
    /// a search's times, scope and filter read); what they answer must read back as XML (no
    /// unescaped input in it).
    static let soapRequest = FuzzTarget(name: "soap-request", parses: "ONVIF SOAP requests (device, media, media2, event, recording, search and replay services)") { bytes in
        guard let request = try? SOAPRequest.parse(bytes) else { return }
        if let token = request.usernameToken {
            _ = UsernameTokenCheck(user: "admin").check(token, password: "token", nowMs: 0)
        }
        let device = DeviceService(facts: facts, interfaces: { [] })
        for answer in [
            Result { () throws(SOAPFault) in try device.respond(to: request, at: endpoint) },
            Result { () throws(SOAPFault) in try MediaService(video: facts.video).respond(to: request, at: endpoint) },
            Result { () throws(SOAPFault) in try Media2Service(video: facts.video).respond(to: request, at: endpoint) },
            Result { () throws(SOAPFault) in
                try EventService(subscriptions: PullPointSubscriptions(), nowMs: { 0 }).respond(to: request, at: endpoint)
            },
            Result { () throws(SOAPFault) in try RecordingService(facts: recording).respond(to: request, at: endpoint) },
            Result { () throws(SOAPFault) in try SearchService(facts: recording, searches: SearchSessions()).respond(to: request, at: endpoint) },
            Result { () throws(SOAPFault) in
                try ReplayService(sessionTimeout: ReplaySessionTimeout(read: { 0 }, set: { _ in })).respond(to: request, at: endpoint)
            },
        ] {
            let xml: String
            switch answer {
            case .success(let body): xml = SOAPResponse.envelope(body: body)
            case .failure(let fault): xml = fault.envelope
            }
            precondition((try? XMLReader(maximumBytes: 1 << 20).parse(Array(xml.utf8))) != nil, "an answer that is not XML")
        }
    }

    static let responder = WSDiscoveryResponder(
        identity: NodeIdentity(id: "00000000-0000-4000-8000-000000000000", name: "fuzz"), scopes: ONVIFDeviceFacts.scopes(name: "fuzz"),
        tls: false, logger: Logger(label: "fuzz"))

    /// One datagram on UDP 3702: read; a Probe's answer must be XML whose RelatesTo is the probe's MessageID.
    static let discoveryDatagram = FuzzTarget(name: "ws-discovery", parses: "WS-Discovery datagrams on UDP 3702") { bytes in
        responder.serverStarted(port: 8090)
        guard let reply = responder.reply(to: bytes, from: "192.0.2.2", interfaceIndex: nil, nowMs: 0)
        else { return }
        guard case .probe(let messageID, _, _)? = try? WSDiscoveryMessage.parse(bytes),
            let root = try? XMLReader(maximumBytes: 1 << 20).parse(Array(reply.utf8))
        else { preconditionFailure("a reply to something that is not a Probe, or not XML") }
        precondition(root.descendant("RelatesTo")?.text == messageID, "RelatesTo is not the probe's MessageID")
    }
}
