import AllSparkNode
import ArgumentParser
import Foundation

/// Where the configuration comes from, shared by every subcommand.
struct ConfigOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            Config file (default: /etc/allspark-node/<instance>.yaml with --instance, else $ALLSPARK_CONFIG, else \
            ./config/allspark-node.yaml if present, else the installed /etc/allspark-node/allspark-node.yaml).
            """)
    var config: String?

    @Option(name: .long, help: "Store directory (overrides the config file).")
    var store: String?

    @Option(
        name: .long,
        help: """
            The installed node instance (systemd's allspark-node@<instance>): its config \
            /etc/allspark-node/<instance>.yaml and store /var/lib/allspark-node/<instance>; \
            \(InstallLayout.defaultInstance) is allspark-node.service.
            """)
    var instance: String?

    private var layout: InstallLayout { .current }

    /// The installed instance these options name: `--instance`, or `default` when nothing
    /// else names a configuration and this binary is the installed one.
    var installedInstance: String? {
        if let instance { return instance }
        guard config == nil, ProcessInfo.processInfo.environment["ALLSPARK_CONFIG"] == nil, localConfigFile == nil,
            layout.installedConfigFile != nil
        else { return nil }
        return InstallLayout.defaultInstance
    }

    private var localConfigFile: String? {
        let local = "config/allspark-node.yaml"
        return FileManager.default.fileExists(atPath: local) ? local : nil
    }

    var configFilePath: String? {
        if let config { return config }
        if let installedInstance { return layout.configFile(instance: installedInstance) }
        return ProcessInfo.processInfo.environment["ALLSPARK_CONFIG"] ?? localConfigFile
    }

    func load(flags: [(key: String, value: ConfigValue)] = []) throws -> NodeConfig {
        var all = flags
        if let store { all.append(("store", .text(store))) }
        var instanceDefaults: [(key: String, value: ConfigValue)] = []
        if let installedInstance {
            do {
                try InstallLayout.validateInstance(installedInstance)
            } catch {
                throw ValidationError(error.description)
            }
            instanceDefaults.append(("store", .text(layout.storeDirectory(instance: installedInstance))))
        }
        do {
            return try ConfigLoader(
                filePath: configFilePath, environment: ProcessInfo.processInfo.environment, flags: all,
                instanceDefaults: instanceDefaults
            ).load()
        } catch let error as ConfigError {
            throw ValidationError(error.description)
        }
    }
}
