import CAvahi
import Logging
import Synchronization

/// One search for a service type: browses, resolves each instance as it appears, and
/// delivers the first one that resolves (`.first`) or every one resolved (`.all`): once
/// avahi says no more are likely soon and every resolver has answered, or at the deadline
/// with what has resolved by then (an empty list when none did); or an error. Used once.
///
/// All `var`s are touched only on the avahi loop: in its callbacks, or under `loop.withLock`.
final class ServiceBrowseSession: @unchecked Sendable {
    typealias Outcome = Result<[DiscoveredService], any Error>

    enum Mode { case first, all }

    private enum Delivery {
        case notStarted
        case cancelledBeforeStart
        case waiting(CheckedContinuation<[DiscoveredService], any Error>)
        case delivered
    }

    private let loop: AvahiThreadedLoop
    private let serviceType: String
    private let mode: Mode
    private let logger: Logger
    private let delivery = Mutex(Delivery.notStarted)

    private var client: OpaquePointer?
    private var browser: OpaquePointer?
    private var deadlineTimer: OpaquePointer?
    /// Open resolvers and the address protocol each asked for.
    private var resolvers: [OpaquePointer: AvahiProtocol] = [:]
    /// What `.all` has resolved so far, by instance name.
    private var resolved: [String: DiscoveredService] = [:]
    /// Avahi's "all for now": its cache is read and the network has had its chance to answer
    /// (about 1 s after the query); later announcements are unlikely.
    private var browsedAllForNow = false

    init(serviceType: String, mode: Mode, logger: Logger) throws(DiscoveryError) {
        loop = try AvahiThreadedLoop()
        self.serviceType = serviceType
        self.mode = mode
        self.logger = logger
    }

    /// Starts the search; `continuation` is resumed exactly once.
    func begin(timeoutMilliseconds: UInt32, continuation: CheckedContinuation<[DiscoveredService], any Error>) {
        let isCancelled = delivery.withLock { delivery in
            if case .cancelledBeforeStart = delivery { return true }
            delivery = .waiting(continuation)
            return false
        }
        guard !isCancelled else {
            continuation.resume(throwing: CancellationError())
            return
        }
        do {
            try loop.start()
        } catch {
            deliver(.failure(error))
            return
        }
        loop.withLock { startBrowsing(timeoutMilliseconds: timeoutMilliseconds) }
    }

    func cancel() {
        let isStarted = delivery.withLock { delivery in
            guard case .notStarted = delivery else { return true }
            delivery = .cancelledBeforeStart
            return false
        }
        if isStarted {
            deliver(.failure(CancellationError()))
        }
    }

    /// Frees every avahi object and joins the loop thread. Call it once the result is in.
    func close() {
        loop.withLock {
            if let deadlineTimer {
                loop.free(deadlineTimer)
                self.deadlineTimer = nil
            }
            for resolver in resolvers.keys {
                freeResolver(resolver)
            }
            if let browser {
                let code = avahi_service_browser_free(browser)
                if !avahiSucceeded(code) {
                    logger.debug("mDNS: freeing the browser reported: \(avahiErrorText(code))")
                }
                self.browser = nil
            }
            if let client {
                avahi_client_free(client)
                self.client = nil
            }
        }
        loop.stop()
    }

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func session(_ userdata: UnsafeMutableRawPointer?) -> ServiceBrowseSession? {
        userdata.map { Unmanaged<ServiceBrowseSession>.fromOpaque($0).takeUnretainedValue() }
    }

    private func deliver(_ outcome: Outcome) {
        let continuation = delivery.withLock { delivery -> CheckedContinuation<[DiscoveredService], any Error>? in
            guard case .waiting(let continuation) = delivery else { return nil }
            delivery = .delivered
            return continuation
        }
        continuation?.resume(with: outcome)
    }

    private func startBrowsing(timeoutMilliseconds: UInt32) {
        var error: Int32 = 0
        // No NO_FAIL flag: a missing daemon must fail now, not be waited for.
        let newClient = avahi_client_new(loop.poll, AvahiClientFlags(0), { client, state, userdata in
            guard let client, let session = ServiceBrowseSession.session(userdata) else { return }
            session.clientChanged(client, state)
        }, userdata, &error)
        guard let newClient else {
            deliver(.failure(DiscoveryError.daemonUnavailable(avahiErrorText(error))))
            return
        }
        client = newClient
        browser = avahi_service_browser_new(
            newClient, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), serviceType, nil,
            AvahiLookupFlags(0), { _, interface, proto, event, name, type, domain, _, userdata in
                ServiceBrowseSession.session(userdata)?.browserEvent(event, interface, proto, name, type, domain)
            }, userdata)
        guard browser != nil else {
            deliver(.failure(DiscoveryError.avahiFailure(
                operation: "avahi_service_browser_new", reason: avahiErrorText(avahi_client_errno(newClient)))))
            return
        }
        deadlineTimer = loop.makeTimer(afterMilliseconds: timeoutMilliseconds, userdata: userdata) { _, userdata in
            guard let session = ServiceBrowseSession.session(userdata) else { return }
            session.deliver(.success(session.resolved.values.sorted { $0.name < $1.name }))
        }
        if deadlineTimer == nil {
            deliver(.failure(DiscoveryError.avahiFailure(operation: "timeout_new", reason: "out of memory")))
        }
    }

    private func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        guard state == AVAHI_CLIENT_FAILURE else { return }
        deliver(.failure(DiscoveryError.daemonUnavailable(avahiErrorText(avahi_client_errno(client)))))
    }

    private func browserEvent(
        _ event: AvahiBrowserEvent, _ interface: AvahiIfIndex, _ proto: AvahiProtocol,
        _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?
    ) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, let type, let domain else { return }
            // Ask for an IPv4 address first: it needs no interface scope to connect to.
            resolve(name, type, domain, interface, proto, addressProtocol: AvahiProtocol(AVAHI_PROTO_INET))
        case AVAHI_BROWSER_ALL_FOR_NOW:
            browsedAllForNow = true
            deliverIfSettled()
        case AVAHI_BROWSER_FAILURE:
            let reason = client.map { avahiErrorText(avahi_client_errno($0)) } ?? "unknown"
            deliver(.failure(DiscoveryError.avahiFailure(operation: "browsing \(serviceType)", reason: reason)))
        default:
            break
        }
    }

    private func resolve(
        _ name: UnsafePointer<CChar>, _ type: UnsafePointer<CChar>, _ domain: UnsafePointer<CChar>,
        _ interface: AvahiIfIndex, _ proto: AvahiProtocol, addressProtocol: AvahiProtocol
    ) {
        guard let client else { return }
        let resolver = avahi_service_resolver_new(
            client, interface, proto, name, type, domain, addressProtocol, AvahiLookupFlags(0),
            { resolver, interface, proto, event, name, type, domain, hostName, address, port, txt, _, userdata in
                guard let resolver, let session = ServiceBrowseSession.session(userdata) else { return }
                session.resolverEvent(resolver, event, interface, proto, name, type, domain, hostName, address, port, AvahiTXTRecord.pairs(txt))
            }, userdata)
        guard let resolver else {
            logger.warning("mDNS: cannot resolve \"\(String(cString: name))\": \(avahiErrorText(avahi_client_errno(client)))")
            return
        }
        resolvers[resolver] = addressProtocol
    }

    private func resolverEvent(
        _ resolver: OpaquePointer, _ event: AvahiResolverEvent, _ interface: AvahiIfIndex, _ proto: AvahiProtocol,
        _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?,
        _ hostName: UnsafePointer<CChar>?, _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16, _ txt: [String: String]
    ) {
        let askedFor = resolvers[resolver]
        // At the end: the strings passed in belong to the resolver's reply.
        defer {
            freeResolver(resolver)
            deliverIfSettled()
        }
        guard let name, let type, let domain else { return }
        let instance = String(cString: name)
        switch event {
        case AVAHI_RESOLVER_FOUND:
            guard let address, let host = avahiAddressText(address, interface: interface) else { return }
            let hostName = hostName.map { String(cString: $0) } ?? host
            logger.info("mDNS: found \(serviceType) \"\(instance)\" at \(host):\(port)")
            let service = DiscoveredService(host: host, port: Int(port), name: instance, hostName: hostName, txt: txt)
            switch mode {
            case .first: deliver(.success([service]))
            case .all: resolved[instance] = service
            }
        case AVAHI_RESOLVER_FAILURE where askedFor == AvahiProtocol(AVAHI_PROTO_INET):
            // No IPv4 address: take whatever the server has.
            resolve(name, type, domain, interface, proto, addressProtocol: AvahiProtocol(AVAHI_PROTO_UNSPEC))
        default:
            let reason = client.map { avahiErrorText(avahi_client_errno($0)) } ?? "unknown"
            logger.warning("mDNS: cannot resolve \"\(instance)\": \(reason)")
        }
    }

    /// `.all` ends early once avahi has said "all for now" and no resolver is still out,
    /// rather than always listening to the deadline.
    private func deliverIfSettled() {
        guard mode == .all, browsedAllForNow, resolvers.isEmpty else { return }
        deliver(.success(resolved.values.sorted { $0.name < $1.name }))
    }

    private func freeResolver(_ resolver: OpaquePointer) {
        resolvers[resolver] = nil
        let code = avahi_service_resolver_free(resolver)
        if !avahiSucceeded(code) {
            logger.debug("mDNS: freeing a resolver reported: \(avahiErrorText(code))")
        }
    }
}
