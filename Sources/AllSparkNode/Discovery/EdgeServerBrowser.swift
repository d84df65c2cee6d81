import Logging

/// Finds AllSpark edge servers (for `uplink.url: auto`), or with another service type the
/// fleet's nodes, on the LAN through avahi-daemon.
public struct EdgeServerBrowser: Sendable {
    /// The type edge servers advertise themselves with.
    public static let edgeServerServiceType = "_allspark._tcp"

    public let serviceType: String
    private let logger: Logger

    public init(serviceType: String = EdgeServerBrowser.edgeServerServiceType, logger: Logger) {
        self.serviceType = serviceType
        self.logger = logger
    }

    /// The first instance that resolves to an address and port, or `nil` if none does
    /// within `timeout`.
    /// - Throws: `DiscoveryError.daemonUnavailable` without avahi-daemon or D-Bus,
    ///   `DiscoveryError.avahiFailure` if browsing fails, `CancellationError` when cancelled.
    public func findFirst(timeout: Duration) async throws -> DiscoveredService? {
        try await browse(.first, timeout: timeout).first
    }

    /// Every instance resolved within `window` (a browse has no end: the window is how long
    /// to listen for answers).
    public func findAll(window: Duration) async throws -> [DiscoveredService] {
        try await browse(.all, timeout: window)
    }

    private func browse(_ mode: ServiceBrowseSession.Mode, timeout: Duration) async throws -> [DiscoveredService] {
        let session = try ServiceBrowseSession(serviceType: serviceType, mode: mode, logger: logger)
        defer { session.close() }
        let milliseconds = Self.milliseconds(timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                session.begin(timeoutMilliseconds: milliseconds, continuation: continuation)
            }
        } onCancel: {
            session.cancel()
        }
    }

    /// `timeout` in whole milliseconds, clamped to what avahi's timer takes.
    static func milliseconds(_ timeout: Duration) -> UInt32 {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return UInt32(clamping: max(milliseconds, 0))
    }
}
