import CAvahi
import Logging
import Synchronization

/// One started run of `AvahiPublisher`: the avahi client and the entry group holding the
/// node's service, kept published across daemon restarts and name collisions.
///
/// All `var`s are touched only on the avahi loop: in its callbacks, or under `loop.withLock`.
final class NodePublishSession: @unchecked Sendable {
    /// Between a lost daemon (or a failed connect) and the next attempt.
    static let reconnectDelayMilliseconds: UInt32 = 1000
    /// Alternative names tried in a row before giving up on a collision.
    static let maximumRenames = 50

    private let loop: AvahiThreadedLoop
    private let advertisement: NodeAdvertisement
    private let logger: Logger
    private let currentState = Mutex(PublisherState.waitingForDaemon)

    private var client: OpaquePointer?
    private var group: OpaquePointer?
    private var serviceName: String
    private var reconnectTimer: OpaquePointer?
    private var isReportingDaemonAbsence = false
    private var isShutDown = false

    init(advertisement: NodeAdvertisement, logger: Logger) throws(DiscoveryError) {
        loop = try AvahiThreadedLoop()
        self.advertisement = advertisement
        self.logger = logger
        serviceName = advertisement.name
    }

    var state: PublisherState { currentState.withLock { $0 } }

    /// Starts the loop thread and the first connection attempt.
    func begin() throws(DiscoveryError) {
        try loop.start()
        loop.withLock { connect() }
    }

    /// Withdraws the service, frees every avahi object and joins the loop thread.
    func shutDown() {
        loop.withLock {
            isShutDown = true
            if let reconnectTimer {
                loop.free(reconnectTimer)
                self.reconnectTimer = nil
            }
            dropClient()
            setState(.stopped)
        }
        loop.stop()
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func session(_ userdata: UnsafeMutableRawPointer?) -> NodePublishSession? {
        userdata.map { Unmanaged<NodePublishSession>.fromOpaque($0).takeUnretainedValue() }
    }

    private func setState(_ state: PublisherState) {
        currentState.withLock { $0 = state }
    }

    // MARK: Client

    private func connect() {
        var error: Int32 = 0
        // NO_FAIL: with D-Bus up but no daemon, the client waits for the daemon by itself.
        let newClient = avahi_client_new(loop.poll, AVAHI_CLIENT_NO_FAIL, { client, state, userdata in
            guard let client, let session = NodePublishSession.session(userdata) else { return }
            session.clientChanged(client, state)
        }, userdata, &error)
        guard let newClient else {
            // Without D-Bus avahi fails at once even with NO_FAIL: only a timer brings it back.
            reportDaemonAbsence("cannot reach avahi over D-Bus: \(avahiErrorText(error))")
            scheduleReconnect()
            return
        }
        client = newClient
    }

    private func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            // avahi_client_new may call back before it returns, so keep the pointer here too.
            self.client = client
            isReportingDaemonAbsence = false
            publish(on: client)
        case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
            // The host name is being (re)announced; the service is added again once RUNNING.
            resetGroup()
        case AVAHI_CLIENT_CONNECTING:
            reportDaemonAbsence("avahi-daemon is not running")
        case AVAHI_CLIENT_FAILURE:
            // A client that lost its daemon never recovers: replace it, but not from inside
            // its own callback.
            reportDaemonAbsence("lost avahi-daemon: \(avahiErrorText(avahi_client_errno(client)))")
            scheduleReconnect()
        default:
            break
        }
    }

    private func reportDaemonAbsence(_ reason: String) {
        if !isReportingDaemonAbsence {
            logger.warning("mDNS: \(reason); will publish when it is back")
            isReportingDaemonAbsence = true
        }
        setState(.waitingForDaemon)
    }

    private func scheduleReconnect() {
        if let reconnectTimer {
            loop.rearm(reconnectTimer, afterMilliseconds: Self.reconnectDelayMilliseconds)
            return
        }
        reconnectTimer = loop.makeTimer(afterMilliseconds: Self.reconnectDelayMilliseconds, userdata: userdata) { _, userdata in
            NodePublishSession.session(userdata)?.reconnect()
        }
        if reconnectTimer == nil {
            fail("cannot create the reconnect timer (out of memory)")
        }
    }

    private func reconnect() {
        guard !isShutDown else { return }
        dropClient()
        connect()
    }

    /// Frees the group (withdrawing the service if the daemon is there) and the client.
    private func dropClient() {
        if let group {
            let code = avahi_entry_group_free(group)
            if !avahiSucceeded(code) {
                logger.debug("mDNS: freeing the entry group reported: \(avahiErrorText(code))")
            }
            self.group = nil
        }
        if let client {
            avahi_client_free(client)
            self.client = nil
        }
    }

    // MARK: Service

    private func publish(on client: OpaquePointer) {
        if group == nil {
            group = avahi_entry_group_new(client, { group, state, userdata in
                guard let group, let session = NodePublishSession.session(userdata) else { return }
                session.groupChanged(group, state)
            }, userdata)
            guard group != nil else {
                fail("avahi_entry_group_new: \(avahiErrorText(avahi_client_errno(client)))")
                return
            }
        }
        guard let group, avahi_entry_group_is_empty(group) != 0 else { return }
        addServiceAndCommit(to: group)
    }

    private func groupChanged(_ group: OpaquePointer, _ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            logger.info("mDNS: published \"\(serviceName)\" as \(NodeAdvertisement.serviceType) on port \(advertisement.port)")
            setState(.registered(name: serviceName))
        case AVAHI_ENTRY_GROUP_COLLISION:
            // Another host on the network owns the name (found while probing).
            guard takeAlternativeName() else { return }
            resetGroup()
            addServiceAndCommit(to: group)
        case AVAHI_ENTRY_GROUP_FAILURE:
            let reason = avahiErrorText(avahi_client_errno(avahi_entry_group_get_client(group)))
            fail("entry group failed: \(reason)")
            scheduleReconnect()
        default:
            break
        }
    }

    private func addServiceAndCommit(to group: OpaquePointer) {
        for _ in 0...Self.maximumRenames {
            setState(.registering(name: serviceName))
            let code = addService(to: group)
            if code == Int32(AVAHI_ERR_COLLISION) {
                // The name is already held on this host (another process or publisher).
                guard takeAlternativeName() else { return }
                continue
            }
            guard avahiSucceeded(code) else {
                fail("avahi_entry_group_add_service: \(avahiErrorText(code))")
                return
            }
            let committed = avahi_entry_group_commit(group)
            guard avahiSucceeded(committed) else {
                fail("avahi_entry_group_commit: \(avahiErrorText(committed))")
                return
            }
            return
        }
        fail("no free service name after \(Self.maximumRenames) alternatives of \"\(advertisement.name)\"")
    }

    private func addService(to group: OpaquePointer) -> Int32 {
        let added = withAvahiStringList(advertisement.txtRecord) { txt in
            avahi_entry_group_add_service_strlst(
                group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0),
                serviceName, NodeAdvertisement.serviceType, nil, nil, advertisement.port, txt)
        }
        return added ?? Int32(AVAHI_ERR_NO_MEMORY)
    }

    /// Switches to avahi's next alternative name ("Node" → "Node #2"); false if it failed.
    private func takeAlternativeName() -> Bool {
        guard let alternative = avahi_alternative_service_name(serviceName) else {
            fail("avahi_alternative_service_name: out of memory")
            return false
        }
        defer { avahi_free(alternative) }
        let next = String(cString: alternative)
        logger.notice("mDNS: service name \"\(serviceName)\" is taken; trying \"\(next)\"")
        setState(.collision(taken: serviceName, trying: next))
        serviceName = next
        return true
    }

    private func resetGroup() {
        guard let group else { return }
        let code = avahi_entry_group_reset(group)
        if !avahiSucceeded(code) {
            logger.debug("mDNS: resetting the entry group reported: \(avahiErrorText(code))")
        }
    }

    private func fail(_ reason: String) {
        logger.error("mDNS: \(reason)")
        setState(.failed(reason: reason))
    }
}
