import Testing

/// Tests against the real avahi-daemon (on loopback only). Serialized: some of them stop
/// or restart the daemon the others rely on. The suite's limit only stops a hung test: the
/// privacy suites running beside it can hold both of Swift's cooperative threads on a
/// loaded 2-core machine for minutes (a 1-minute limit failed a search under a benchmark's
/// load). The tests whose point is a bound set their own.
@Suite("Discovery: with avahi-daemon", .serialized, .timeLimit(.minutes(5)))
struct DiscoveryDaemonTests {}
