import Foundation
import Logging
import Synchronization

/// Announces the running node with mDNS once its port is known, and withdraws it at shutdown.
public final class NodeAnnouncer: Sendable {
    private let publisher = Mutex<AvahiPublisher?>(nil)
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Starts publishing `_allspark-node._tcp` on `port`; an absent avahi-daemon is waited for.
    /// The TXT record carries the node's id, so the fleet merges it with its bucket record.
    func announce(identity: NodeIdentity, port: Int, tls: Bool) {
        let name = identity.name
        do {
            let advertisement = try NodeAdvertisement(
                name: name, port: UInt16(clamping: port), version: NodeVersion.current, apiPath: "/api", tlsEnabled: tls,
                extraTXT: [NodeAdvertisement.idKey: identity.id])
            let started = AvahiPublisher(advertisement: advertisement, logger: logger)
            started.start()
            publisher.withLock { $0 = started }
            logger.info("mDNS: announcing \(name) as \(NodeAdvertisement.serviceType) on port \(port)")
        } catch {
            logger.error("mDNS: cannot announce \(name): \(error)")
        }
    }

    func withdraw() {
        publisher.withLock { publisher in
            publisher?.stop()
            publisher = nil
        }
    }

    /// For /api/status: what the publisher is doing, or "off".
    public var state: String {
        publisher.withLock { $0.map { "\($0.state)" } ?? "off" }
    }
}
