import CSystemd
import Foundation

/// The service's side of systemd's `Type=notify` and `WatchdogSec=` (sd_notify(3)), through
/// libsystemd rather than a hand-written datagram client: it already handles abstract
/// sockets, `WATCHDOG_PID` and the protocol's edge cases, and is on every systemd machine.
/// Outside systemd (no `NOTIFY_SOCKET`) nothing is sent.
public struct SystemdNotifier: Sendable {
    /// Whether systemd asked for notifications.
    public let isSupervised: Bool
    /// How often systemd wants `WATCHDOG=1` at the latest; nil when the watchdog is off.
    public let watchdogTimeout: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        isSupervised = !(environment["NOTIFY_SOCKET"] ?? "").isEmpty
        var microseconds: UInt64 = 0
        watchdogTimeout = sd_watchdog_enabled(0, &microseconds) > 0 ? .microseconds(Int64(microseconds)) : nil
    }

    /// Startup is complete: the node records and serves.
    public func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    public func status(_ status: String) { send("STATUS=\(Self.oneLine(status))") }

    /// The recorder made progress since the last call; systemd restarts the node when these stop.
    public func watchdog() { send("WATCHDOG=1") }

    /// A graceful stop began (the chunk being recorded is finished first).
    public func stopping() { send("STOPPING=1\nSTATUS=finishing the current chunk") }

    private func send(_ fields: String) {
        guard isSupervised else { return }
        _ = sd_notify(0, fields)
    }

    /// STATUS= is one line; a message with newlines would end the field early.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }.prefix(200))
    }
}
