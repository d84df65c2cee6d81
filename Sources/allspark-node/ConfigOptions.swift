import AllSparkNode
import ArgumentParser
import Foundation

/// Where the configuration comes from, shared by every subcommand.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "Config file (default: $ALLSPARK_CONFIG, else ./config/allspark-node.yaml if present).")
    var config: String?

    @Option(name: .long, help: "Store directory (overrides the config file).")
    var store: String?

    var configFilePath: String? {
        if let config { return config }
        if let path = ProcessInfo.processInfo.environment["ALLSPARK_CONFIG"] { return path }
        let local = "config/allspark-node.yaml"
        return FileManager.default.fileExists(atPath: local) ? local : nil
    }

    func load(flags: [(key: String, value: ConfigValue)] = []) throws -> NodeConfig {
        var all = flags
        if let store { all.append(("store", .text(store))) }
        do {
            return try ConfigLoader(filePath: configFilePath, environment: ProcessInfo.processInfo.environment, flags: all).load()
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }
}
