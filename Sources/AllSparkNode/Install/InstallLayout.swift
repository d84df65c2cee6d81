import Foundation

/// The one place that knows where an installed node's files live, and where a node run
/// from the repository finds the same files.
///
/// The binary's own prefix decides: `/usr/bin/allspark-node` (the Debian package) reads
/// `/usr/share/allspark-node`, a binary in `/usr/local/bin` reads `/usr/local/share/...`.
/// Under systemd each instance has `/etc/allspark-node/<instance>.yaml` and the store
/// `/var/lib/allspark-node/<instance>`; the instance `default` (allspark-node.service)
/// reads `/etc/allspark-node/allspark-node.yaml`.
public struct InstallLayout: Sendable {
    /// `<prefix>/share/allspark-node` beside the running binary.
    public let shareDirectory: String
    public let configDirectory: String
    public let stateDirectory: String

    public static let defaultInstance = "default"
    /// Where `scripts/setup.sh` puts the model on a machine that runs from the repository.
    static let setupShareDirectory = "/usr/local/share/allspark-node"
    /// Where `scripts/setup.sh` unpacks ONNX Runtime on Debian 12.
    static let setupLibraryDirectory = "/usr/local/lib/allspark-node"

    public init(
        shareDirectory: String = InstallLayout.shareDirectoryBesideExecutable(),
        configDirectory: String = "/etc/allspark-node",
        stateDirectory: String = "/var/lib/allspark-node"
    ) {
        self.shareDirectory = shareDirectory
        self.configDirectory = configDirectory
        self.stateDirectory = stateDirectory
    }

    public static let current = InstallLayout()

    /// The dashboard: the one shipped beside the binary, else `web/` of the repository the
    /// node is run from (the working directory), as `scripts/run.sh` does.
    public var webDirectory: String {
        let installed = shareDirectory + "/web"
        return FileManager.default.fileExists(atPath: installed + "/index.html") ? installed : "web"
    }

    /// The HTTP API's OpenAPI document: the package's copy beside the dashboard, else the one
    /// in `docs/reference/` of the repository the node is run from.
    public var openAPIDocument: String {
        let installed = shareDirectory + "/openapi.json"
        return FileManager.default.fileExists(atPath: installed) ? installed : "docs/reference/openapi.json"
    }

    /// A face net's model: the package's copy, else the one `scripts/setup.sh` installs.
    /// When neither exists the package's path is named, so the warning says where it belongs.
    public func faceModelFile(for model: FaceNetModel) -> String {
        let candidates = [shareDirectory + "/" + model.fileName, Self.setupShareDirectory + "/" + model.fileName]
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates[0]
    }

    /// Where ONNX Runtime's library may be, in order: the package's own copy (Debian 12,
    /// `<prefix>/lib/allspark-node`), the one `scripts/setup.sh` unpacks, then Debian 13's
    /// package through the loader's search path.
    public var onnxRuntimeCandidates: [String] {
        let file = "libonnxruntime.so.1.21.1"
        let prefix = URL(fileURLWithPath: shareDirectory).deletingLastPathComponent().deletingLastPathComponent()
        let copies = [prefix.appendingPathComponent("lib/allspark-node/" + file).path, Self.setupLibraryDirectory + "/" + file]
        var seen = Set<String>()
        return copies.filter { seen.insert($0).inserted && FileManager.default.fileExists(atPath: $0) } + ["libonnxruntime.so.1.21"]
    }

    /// An instance's configuration file (`default` is the package's allspark-node.yaml).
    public func configFile(instance: String) -> String {
        configDirectory + "/" + (instance == Self.defaultInstance ? "allspark-node" : instance) + ".yaml"
    }

    /// An instance's store: systemd's StateDirectory for it.
    public func storeDirectory(instance: String) -> String { stateDirectory + "/" + instance }

    /// The package's default configuration, when this binary is the installed one.
    public var installedConfigFile: String? {
        let file = configFile(instance: Self.defaultInstance)
        return FileManager.default.fileExists(atPath: file) && shareDirectory.hasPrefix("/usr/") ? file : nil
    }

    /// Instance names become file names: letters, digits, `-`, `_`, `.` (not leading), as
    /// systemd's own unit-name rules allow after escaping.
    public static func validateInstance(_ name: String) throws(InstallLayoutError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard !name.isEmpty, name.count <= 64, name.allSatisfy(allowed.contains), !name.hasPrefix(".") else {
            throw .invalidInstance(name)
        }
    }

    public static func shareDirectoryBesideExecutable() -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let prefix = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
        return prefix.appendingPathComponent("share/allspark-node").path
    }
}

public enum InstallLayoutError: Error, CustomStringConvertible {
    case invalidInstance(String)

    public var description: String {
        switch self {
        case .invalidInstance(let name):
            "instance name \"\(name)\" must be 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'"
        }
    }
}
