import CKernelClock
import Glibc

/// The kernel's view of the wall clock the node stamps frames with: whether a time daemon
/// (NTP, chrony, PTP) has it synchronised, and its estimated and maximum error.
public struct KernelClock: Sendable, Equatable {
    /// adjtimex's clock state: ok, insert/delete (a leap second is due), leap (in progress),
    /// wait (just after one) or error (not synchronised).
    public let kernelState: String
    public let synchronized: Bool
    public let estimatedErrorMs: Double
    public let maximumErrorMs: Double

    public init(kernelState: String, synchronized: Bool, estimatedErrorMs: Double, maximumErrorMs: Double) {
        self.kernelState = kernelState
        self.synchronized = synchronized
        self.estimatedErrorMs = estimatedErrorMs
        self.maximumErrorMs = maximumErrorMs
    }

    /// Reads adjtimex(2) without changing anything; nil when the call fails (it does not in
    /// containers or unprivileged processes, but a seccomp filter could refuse it).
    public static func read() -> KernelClock? {
        var raw = allspark_kernel_clock()
        guard allspark_read_kernel_clock(&raw) == 0 else { return nil }
        let states = ["ok", "insert", "delete", "leap", "wait", "error"]
        let state = states.indices.contains(Int(raw.state)) ? states[Int(raw.state)] : "state \(raw.state)"
        return KernelClock(
            kernelState: state,
            // TIME_ERROR (5) is the kernel's own verdict; STA_UNSYNC is what daemons clear once locked.
            synchronized: raw.state != 5 && raw.unsynchronized == 0,
            estimatedErrorMs: Double(raw.estimated_error_us) / 1000,
            maximumErrorMs: Double(raw.maximum_error_us) / 1000)
    }

    /// Why the clock makes chunk times untrustworthy, or nil when it does not.
    public func problem(maximumErrorLimitMs: Double, synchronizationRequired: Bool) -> String? {
        if !synchronized {
            guard synchronizationRequired else { return nil }
            return "clock: the kernel clock is not synchronised (no NTP or PTP daemon has set it); chunk times may be off"
        }
        guard maximumErrorMs > maximumErrorLimitMs else { return nil }
        return "clock: the kernel clock's maximum error \(maximumErrorMs.formatted1) ms is above the \(maximumErrorLimitMs.formatted1) ms limit"
    }

    var json: JSONValue {
        .object([
            "synchronized": .bool(synchronized),
            "estimatedErrorMs": .number(estimatedErrorMs),
            "maximumErrorMs": .number(maximumErrorMs),
            "kernelState": .string(kernelState),
        ])
    }
}
