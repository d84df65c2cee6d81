/// A configuration value that was refused, naming the key and what it accepts.
public enum ConfigError: Error, CustomStringConvertible, Equatable {
    case invalidValue(key: String, value: String, allowed: String)
    case unknownKey(String, source: String)
    case unreadableFile(path: String, reason: String)
    /// A valid value the running node cannot take now (a cap too small for the holds in force).
    case refused(key: String, value: String, reason: String)

    public var key: String? {
        switch self {
        case .invalidValue(let key, _, _): key
        case .unknownKey(let key, _): key
        case .unreadableFile: nil
        case .refused(let key, _, _): key
        }
    }

    public var description: String {
        switch self {
        case .invalidValue(let key, let value, let allowed):
            "invalid value \(value) for \(key): allowed \(allowed)"
        case .unknownKey(let key, let source):
            "unknown key \(key) in \(source)"
        case .unreadableFile(let path, let reason):
            "cannot read config file \(path): \(reason)"
        case .refused(let key, let value, let reason):
            "\(key) \(value) refused: \(reason)"
        }
    }
}
