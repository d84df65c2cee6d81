/// One settable key: its name in YAML and clientConfig, its environment variable, what it
/// accepts, and how it reads and writes `NodeConfig`.
public struct ConfigKey: Sendable {
    public let name: String
    /// Human-readable allowed values, used in every error about this key.
    public let allowed: String
    /// Whether a running node applies it (clientConfig, PUT /api/config) without a restart.
    public let appliesWhileRunning: Bool
    let write: @Sendable (ConfigValue, inout NodeConfig) -> Bool
    let read: @Sendable (NodeConfig) -> ConfigValue

    /// `videoChunkDurationMs` → `ALLSPARK_VIDEO_CHUNK_DURATION_MS`, `encoder.crf` → `ALLSPARK_ENCODER_CRF`.
    public var environmentName: String {
        var result = "ALLSPARK_"
        var previousWasLower = false
        for character in name {
            if character == "." {
                result += "_"
                previousWasLower = false
                continue
            }
            if character.isUppercase && previousWasLower { result += "_" }
            result += character.uppercased()
            previousWasLower = character.isLowercase || character.isNumber
        }
        return result
    }

    public func apply(_ value: ConfigValue, to config: inout NodeConfig) throws {
        guard write(value, &config) else {
            throw ConfigError.invalidValue(key: name, value: value.description, allowed: allowed)
        }
    }

    public func value(in config: NodeConfig) -> ConfigValue { read(config) }

    static func integer(
        _ name: String, _ path: WritableKeyPath<NodeConfig, Int> & Sendable, _ range: ClosedRange<Int>,
        allowed: String? = nil, runtime: Bool = false, accept: @escaping @Sendable (Int) -> Bool = { _ in true }
    ) -> ConfigKey {
        ConfigKey(
            name: name, allowed: allowed ?? "an integer in \(range.lowerBound)...\(range.upperBound)",
            appliesWhileRunning: runtime,
            write: { value, config in
                guard let integer = value.asInteger, range.contains(integer), accept(integer) else { return false }
                config[keyPath: path] = integer
                return true
            },
            read: { .number(Double($0[keyPath: path])) })
    }

    static func decimal(
        _ name: String, _ path: WritableKeyPath<NodeConfig, Double> & Sendable, _ range: ClosedRange<Double>,
        runtime: Bool = false
    ) -> ConfigKey {
        ConfigKey(
            name: name, allowed: "a number in \(range.lowerBound)...\(range.upperBound)", appliesWhileRunning: runtime,
            write: { value, config in
                guard let double = value.asDouble, double.isFinite, range.contains(double) else { return false }
                config[keyPath: path] = double
                return true
            },
            read: { .number($0[keyPath: path]) })
    }

    static func choice(
        _ name: String, _ path: WritableKeyPath<NodeConfig, String> & Sendable, _ choices: [String], runtime: Bool = false
    ) -> ConfigKey {
        ConfigKey(
            name: name, allowed: "one of " + choices.joined(separator: ", "), appliesWhileRunning: runtime,
            write: { value, config in
                guard let text = value.asText, choices.contains(text) else { return false }
                config[keyPath: path] = text
                return true
            },
            read: { .text($0[keyPath: path]) })
    }

    static func text(
        _ name: String, _ path: WritableKeyPath<NodeConfig, String> & Sendable, allowed: String,
        accept: @escaping @Sendable (String) -> Bool = { _ in true }
    ) -> ConfigKey {
        ConfigKey(
            name: name, allowed: allowed, appliesWhileRunning: false,
            write: { value, config in
                guard let text = value.asText, !text.isEmpty, !text.contains("\0"), accept(text) else { return false }
                config[keyPath: path] = text
                return true
            },
            read: { .text($0[keyPath: path]) })
    }

    /// A text that may be empty (an unset token, no TLS files).
    static func optionalText(_ name: String, _ path: WritableKeyPath<NodeConfig, String> & Sendable, allowed: String) -> ConfigKey {
        ConfigKey(
            name: name, allowed: allowed, appliesWhileRunning: false,
            write: { value, config in
                guard let text = value.asText, !text.contains("\0") else { return false }
                config[keyPath: path] = text
                return true
            },
            read: { .text($0[keyPath: path]) })
    }

    static func boolean(_ name: String, _ path: WritableKeyPath<NodeConfig, Bool> & Sendable) -> ConfigKey {
        ConfigKey(
            name: name, allowed: "true or false", appliesWhileRunning: false,
            write: { value, config in
                guard let flag = value.asBool else { return false }
                config[keyPath: path] = flag
                return true
            },
            read: { .flag($0[keyPath: path]) })
    }
}
