import Foundation
import Yams

/// Builds the effective configuration. Later layers win:
/// defaults < instance defaults < config file < runtime changes persisted in the store <
/// environment < flags.
/// Runtime changes (clientConfig, PUT /api/config) sit below the environment and flags
/// because those are the operator's explicit word for this start.
public struct ConfigLoader: Sendable {
    public var filePath: String?
    public var environment: [String: String]
    public var flags: [(key: String, value: ConfigValue)]
    /// What an installed instance starts from (its store), below the config file.
    public var instanceDefaults: [(key: String, value: ConfigValue)]

    public init(
        filePath: String?, environment: [String: String], flags: [(key: String, value: ConfigValue)],
        instanceDefaults: [(key: String, value: ConfigValue)] = []
    ) {
        self.filePath = filePath
        self.environment = environment
        self.flags = flags
        self.instanceDefaults = instanceDefaults
    }

    public func load() throws -> NodeConfig {
        let fileValues = try filePath.map { try Self.readYAML(path: $0) } ?? []
        let environmentValues = ConfigKeys.all.compactMap { key in
            environment[key.environmentName].map { (key: key.name, value: ConfigValue.text($0)) }
        }
        var config = try Self.layered([instanceDefaults, fileValues, environmentValues, flags])
        let persisted = try RuntimeConfigFile(storeDirectory: config.storeDirectory).load()
        if !persisted.isEmpty {
            config = try Self.layered([instanceDefaults, fileValues, persisted, environmentValues, flags])
        }
        return config
    }

    static func layered(_ layers: [[(key: String, value: ConfigValue)]]) throws -> NodeConfig {
        var config = NodeConfig()
        for layer in layers {
            for (name, value) in layer {
                guard let key = ConfigKeys.named(name) else { throw ConfigError.unknownKey(name, source: "configuration") }
                try key.apply(value, to: &config)
            }
        }
        return config
    }

    /// Reads a YAML mapping; nested mappings become dotted keys (`encoder:` / `preset:` → `encoder.preset`).
    public static func readYAML(path: String) throws -> [(key: String, value: ConfigValue)] {
        // FileHandle rather than String(contentsOfFile:), which refuses special files such as /dev/null.
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ConfigError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() ?? Data(), let text = String(data: data, encoding: .utf8) else {
            throw ConfigError.unreadableFile(path: path, reason: "not readable UTF-8 text")
        }
        guard YAMLNesting.depth(of: text) <= YAMLNesting.maximumDepth else {
            throw ConfigError.unreadableFile(path: path, reason: "nested deeper than \(YAMLNesting.maximumDepth) levels")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigError.unreadableFile(path: path, reason: "not valid YAML: \(error)")
        }
        guard let root else { return [] }
        guard root.mapping != nil else { throw ConfigError.unreadableFile(path: path, reason: "the top level is not a mapping") }
        var values: [(key: String, value: ConfigValue)] = []
        try flatten(root, prefix: "", into: &values, path: path)
        return values
    }

    private static func flatten(_ node: Node, prefix: String, into values: inout [(key: String, value: ConfigValue)], path: String) throws {
        if let mapping = node.mapping {
            for (keyNode, valueNode) in mapping {
                guard let name = keyNode.scalar?.string else { continue }
                try flatten(valueNode, prefix: prefix.isEmpty ? name : "\(prefix).\(name)", into: &values, path: path)
            }
            return
        }
        guard let scalar = node.scalar else {
            throw ConfigError.invalidValue(key: prefix, value: "a list", allowed: "a single value")
        }
        guard ConfigKeys.named(prefix) != nil else { throw ConfigError.unknownKey(prefix, source: path) }
        values.append((prefix, .text(scalar.string)))
    }
}
