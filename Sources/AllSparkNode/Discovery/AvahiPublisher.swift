import Logging
import Synchronization

/// Publishes the node as `_allspark-node._tcp` through avahi-daemon (libavahi-client).
///
/// `start()` returns at once; the publisher then keeps the service registered on its own:
/// it waits for a missing daemon or D-Bus, registers again after a daemon restart, and takes
/// an alternative name on a collision. `state` tells where it stands. `stop()` (or releasing
/// the publisher) withdraws the service.
public final class AvahiPublisher: Sendable {
    public let advertisement: NodeAdvertisement
    private let logger: Logger
    private let lifecycle = Mutex(Lifecycle.stopped)

    private enum Lifecycle {
        case stopped
        case running(NodePublishSession)
        case failedToStart(String)
    }

    public init(advertisement: NodeAdvertisement, logger: Logger) {
        self.advertisement = advertisement
        self.logger = logger
    }

    deinit {
        stop()
    }

    public var state: PublisherState {
        lifecycle.withLock { lifecycle in
            switch lifecycle {
            case .stopped: .stopped
            case .running(let session): session.state
            case .failedToStart(let reason): .failed(reason: reason)
            }
        }
    }

    /// Begins publishing; does nothing if already started. An absent daemon is not an error.
    public func start() {
        lifecycle.withLock { lifecycle in
            if case .running = lifecycle { return }
            do {
                let session = try NodePublishSession(advertisement: advertisement, logger: logger)
                try session.begin()
                lifecycle = .running(session)
            } catch {
                logger.error("mDNS: cannot start publishing: \(error)")
                lifecycle = .failedToStart(String(describing: error))
            }
        }
    }

    /// Withdraws the service and frees the avahi resources; `start()` may be called again.
    public func stop() {
        lifecycle.withLock { lifecycle in
            if case .running(let session) = lifecycle {
                session.shutDown()
            }
            lifecycle = .stopped
        }
    }
}
