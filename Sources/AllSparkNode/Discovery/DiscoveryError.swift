import CAvahi

/// Why publishing or browsing with mDNS could not be done.
public enum DiscoveryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The advertisement cannot be published as given (name or TXT entry not valid for DNS-SD).
    case invalidAdvertisement(String)
    /// No avahi-daemon (or no system D-Bus) answered.
    case daemonUnavailable(String)
    /// An avahi call failed; `reason` is avahi's own text for its error code.
    case avahiFailure(operation: String, reason: String)

    public var description: String {
        switch self {
        case .invalidAdvertisement(let reason): "invalid mDNS advertisement: \(reason)"
        case .daemonUnavailable(let reason): "avahi-daemon not available: \(reason)"
        case .avahiFailure(let operation, let reason): "\(operation) failed: \(reason)"
        }
    }
}

/// avahi's text for one of its (negative) error codes.
func avahiErrorText(_ code: Int32) -> String {
    String(cString: avahi_strerror(code))
}

/// True when an avahi call's return value means success.
func avahiSucceeded(_ code: Int32) -> Bool {
    code == Int32(AVAHI_OK)
}
