import Foundation
import Yams

/// Changes made while running (clientConfig, PUT /api/config), kept in the store directory
/// so they survive a restart. Written atomically: a crash leaves the old or the new file.
public struct RuntimeConfigFile: Sendable {
    public static let fileName = ".allspark-runtime.yaml"
    public let path: String

    public init(storeDirectory: String) {
        path = URL(fileURLWithPath: storeDirectory).appendingPathComponent(Self.fileName).path
    }

    public func load() throws -> [(key: String, value: ConfigValue)] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try ConfigLoader.readYAML(path: path)
    }

    /// Records the values of the runtime-changeable keys in `config`.
    public func save(_ config: NodeConfig) throws {
        var lines: [String] = ["# Written by allspark-node: runtime configuration changes. Safe to delete."]
        for key in ConfigKeys.all where key.appliesWhileRunning {
            let value = key.value(in: config)
            let rendered: String
            switch value {
            case .text(let text): rendered = try Yams.dump(object: text).trimmingCharacters(in: .whitespacesAndNewlines)
            default: rendered = value.description
            }
            lines.append("\(key.name): \(rendered)")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Synced before and after the rename: after a power cut the file is the old one or
        // the new one, never an empty or torn one.
        let temporary = path + ".tmp"
        _ = try DurableFile.write(lines.joined(separator: "\n") + "\n", to: temporary)
        try DurableFile.rename(temporary, to: path)
        DurableFile.syncDirectory(directory.path)
    }
}
