import Testing

/// Tests against the real avahi-daemon (on loopback only). Serialized: some of them stop
/// or restart the daemon the others rely on.
@Suite("Discovery: with avahi-daemon", .serialized, .timeLimit(.minutes(1)))
struct DiscoveryDaemonTests {}
