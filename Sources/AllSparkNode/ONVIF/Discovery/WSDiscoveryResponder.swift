import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// WS-Discovery on UDP 3702: joins 239.255.255.250 on every multicast-capable IPv4
/// interface, answers a Probe for the node's types with a ProbeMatch sent unicast to the
/// probe's source, whose XAddrs is the device service at the address of the interface the
/// probe came in on; says Hello once the HTTP port is known and Bye at stop. Replies are
/// rate-limited; a malformed datagram is dropped and counted.
final class WSDiscoveryResponder: Service, Sendable {
    static let port = 3702
    static let group = "239.255.255.250"

    struct Counters: Sendable, Equatable {
        var probes = 0
        var matches = 0
        var malformed = 0
        var limited = 0
    }

    let announcement: WSDiscoveryAnnouncement
    let tls: Bool
    private let logger: Logger
    private let httpPort = Mutex<Int?>(nil)
    private let state = Mutex<(counters: Counters, messageNumber: Int, limiter: ReplyLimiter)>((Counters(), 0, ReplyLimiter()))

    init(identity: NodeIdentity, scopes: [String], tls: Bool, logger: Logger) {
        announcement = WSDiscoveryAnnouncement(
            endpoint: "urn:uuid:\(identity.id)", scopes: scopes, metadataVersion: 1, instanceID: Int(Date().timeIntervalSince1970))
        self.tls = tls
        self.logger = logger
    }

    var counters: Counters { state.withLock { $0.counters } }

    /// The HTTP server is listening on `port`: XAddrs can be given, Hello said.
    func serverStarted(port: Int) { httpPort.withLock { $0 = port } }

    func run() async throws {
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(.receivePacketInfo, value: true)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(DiscoveryHandler(responder: self)) }
                }
                .bind(host: "0.0.0.0", port: Self.port).get()
        } catch {
            logger.warning("WS-Discovery off: cannot listen on UDP \(Self.port): \(error)")
            try await gracefulShutdown()
            return
        }
        let groupAddress = try SocketAddress(ipAddress: Self.group, port: Self.port)
        var joined: [String] = []
        if let multicast = channel as? MulticastChannel {
            for device in (try? System.enumerateDevices()) ?? [] where device.multicastSupported {
                guard case .v4? = device.address else { continue }
                do {
                    try await multicast.joinGroup(groupAddress, device: device).get()
                    joined.append(device.name)
                } catch {
                    logger.debug("WS-Discovery: cannot join \(Self.group) on \(device.name): \(error)")
                }
            }
        }
        logger.info("WS-Discovery on UDP \(Self.port), \(Self.group) joined on \(joined.isEmpty ? "no interface" : joined.joined(separator: ", "))")
        // Hello once the HTTP port is known, on every interface joined.
        while httpPort.withLock({ $0 }) == nil, !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if let port = httpPort.withLock({ $0 }) {
            let xaddrs = NetworkInterfaceList.current().flatMap(\.ipv4).map { "\(tls ? "https" : "http")://\($0.address):\(port)\(ONVIFEndpoint.devicePath)" }
            send(announcement.hello(xaddrs: xaddrs.joined(separator: " "), messageNumber: nextMessageNumber()), to: groupAddress, on: channel)
        }
        try? await gracefulShutdown()
        send(announcement.bye(messageNumber: nextMessageNumber()), to: groupAddress, on: channel)
        try? await Task.sleep(for: .milliseconds(20))
        channel.close(promise: nil)
    }

    private func send(_ xml: String, to address: SocketAddress, on channel: any Channel) {
        let buffer = channel.allocator.buffer(string: xml)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
    }

    private func nextMessageNumber() -> Int {
        state.withLock { state in
            state.messageNumber += 1
            return state.messageNumber
        }
    }

    /// The reply to one datagram from the IP address `source` that came in on interface
    /// `interfaceIndex`, or nil.
    func reply(to bytes: [UInt8], from source: String, interfaceIndex: Int?, nowMs: Int64 = WallClock.monotonicMs()) -> String? {
        let message: WSDiscoveryMessage
        do {
            message = try WSDiscoveryMessage.parse(bytes)
        } catch {
            state.withLock { $0.counters.malformed += 1 }
            return nil
        }
        guard case .probe(let messageID, let types, let scopes) = message else { return nil }
        state.withLock { $0.counters.probes += 1 }
        guard WSDiscoveryMessage.matches(types: types, scopes: scopes, own: announcement.scopes),
            let port = httpPort.withLock({ $0 })
        else { return nil }
        let allowed = state.withLock { state in
            let allowed = state.limiter.allow(source: source, nowMs: nowMs)
            if allowed { state.counters.matches += 1 } else { state.counters.limited += 1 }
            return allowed
        }
        guard allowed else { return nil }
        let addresses = addresses(onInterface: interfaceIndex)
        let xaddrs = addresses.map { "\(tls ? "https" : "http")://\($0):\(port)\(ONVIFEndpoint.devicePath)" }.joined(separator: " ")
        return announcement.probeMatches(relatesTo: messageID, xaddrs: xaddrs, messageNumber: nextMessageNumber())
    }

    /// The IPv4 addresses of the interface a probe came in on (every interface's when unknown).
    func addresses(onInterface index: Int?) -> [String] {
        let devices = (try? System.enumerateDevices()) ?? []
        let onInterface = devices.filter { index == nil || $0.interfaceIndex == index }.compactMap { device -> String? in
            guard case .v4? = device.address else { return nil }
            return device.address?.ipAddress
        }
        return onInterface.isEmpty ? NetworkInterfaceList.current().flatMap(\.ipv4).map(\.address) : onInterface
    }
}

/// At most `perSource` replies a second to one address and `total` to all.
struct ReplyLimiter: Sendable {
    var perSource = 5
    var total = 50
    private var windowStartMs: Int64 = 0
    private var counts: [String: Int] = [:]
    private var all = 0

    mutating func allow(source: String, nowMs: Int64) -> Bool {
        if nowMs - windowStartMs >= 1000 {
            windowStartMs = nowMs
            counts.removeAll(keepingCapacity: true)
            all = 0
        }
        guard all < total, counts[source, default: 0] < perSource else { return false }
        all += 1
        counts[source, default: 0] += 1
        return true
    }
}

/// Hands each datagram to the responder and writes its reply back to the sender.
private final class DiscoveryHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    let responder: WSDiscoveryResponder

    init(responder: WSDiscoveryResponder) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let bytes = Array(envelope.data.readableBytesView)
        guard let reply = responder.reply(
                to: bytes, from: envelope.remoteAddress.ipAddress ?? "", interfaceIndex: envelope.metadata?.packetInfo?.interfaceIndex) else {
            return
        }
        let buffer = context.channel.allocator.buffer(string: reply)
        context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
    }
}
