import Foundation
import Testing
@testable import AllSparkNode

struct InstallLayoutTests {
    @Test("an instance's config file and store; default is the package's allspark-node.yaml")
    func instancePaths() {
        let layout = InstallLayout(shareDirectory: "/usr/share/allspark-node")
        #expect(layout.configFile(instance: "default") == "/etc/allspark-node/allspark-node.yaml")
        #expect(layout.configFile(instance: "cam2") == "/etc/allspark-node/cam2.yaml")
        #expect(layout.storeDirectory(instance: "cam2") == "/var/lib/allspark-node/cam2")
    }

    @Test("instance names that would leave their folder are refused", arguments: ["", "../etc", "a/b", ".hidden", "cam 2", String(repeating: "x", count: 65)])
    func hostileInstanceNames(name: String) {
        #expect(throws: InstallLayoutError.self) { try InstallLayout.validateInstance(name) }
    }

    @Test("ordinary instance names are taken", arguments: ["cam2", "door-left", "bay_3.north"])
    func ordinaryInstanceNames(name: String) throws {
        try InstallLayout.validateInstance(name)
    }

    @Test("the dashboard, model and API document shipped beside the binary are found; without them the repository's")
    func installedFilesBesideTheBinary() throws {
        let share = try TestFiles.makeDirectory("share")
        let layout = InstallLayout(shareDirectory: share.path)
        #expect(layout.webDirectory == "web")
        #expect(layout.openAPIDocument == "docs/reference/openapi.json")
        #expect(layout.faceModelFile(for: .yuNet) != share.path + "/face_detection_yunet_2023mar.onnx")

        try FileManager.default.createDirectory(at: share.appendingPathComponent("web"), withIntermediateDirectories: true)
        try Data("<html></html>".utf8).write(to: share.appendingPathComponent("web/index.html"))
        try Data("model".utf8).write(to: share.appendingPathComponent("face_detection_yunet_2023mar.onnx"))
        #expect(layout.webDirectory == share.path + "/web")
        try Data("{}".utf8).write(to: share.appendingPathComponent("openapi.json"))
        #expect(layout.openAPIDocument == share.path + "/openapi.json")
        #expect(layout.faceModelFile(for: .yuNet) == share.path + "/face_detection_yunet_2023mar.onnx")
        #expect(layout.faceModelFile(for: .centerFace) != share.path + "/centerface.onnx")
    }

    @Test("an empty webDirectory or privacyModel means the installed one; a set one wins")
    func configDefaultsResolve() {
        var config = NodeConfig()
        #expect(config.server.dashboardDirectory == InstallLayout.current.webDirectory)
        #expect(config.faceModelFile == nil)
        config.server.webDirectory = "/srv/dashboard"
        config.privacyModel = "/srv/model.onnx"
        #expect(config.server.dashboardDirectory == "/srv/dashboard")
        #expect(config.faceModelFile == "/srv/model.onnx")
    }

    @Test("an instance's store sits below the config file: a file that names a store wins")
    func instanceStorePrecedence() throws {
        let directory = try TestFiles.makeDirectory("instance")
        let instanceStore = directory.appendingPathComponent("instance-store").path
        let fileStore = directory.appendingPathComponent("file-store").path
        let withoutStore = directory.appendingPathComponent("plain.yaml")
        try "fps: 12\n".write(to: withoutStore, atomically: true, encoding: .utf8)
        let withStore = directory.appendingPathComponent("store.yaml")
        try "store: \(fileStore)\n".write(to: withStore, atomically: true, encoding: .utf8)

        let plain = try ConfigLoader(
            filePath: withoutStore.path, environment: [:], flags: [], instanceDefaults: [("store", .text(instanceStore))]
        ).load()
        #expect(plain.storeDirectory == instanceStore)
        #expect(plain.fps == 12)
        let named = try ConfigLoader(
            filePath: withStore.path, environment: [:], flags: [], instanceDefaults: [("store", .text(instanceStore))]
        ).load()
        #expect(named.storeDirectory == fileStore)
    }

    @Test("a token root writes into a service's store belongs to the store's owner", .enabled(if: geteuid() == 0))
    func tokenWrittenByRootIsHandedToTheStoreOwner() throws {
        let store = try TestFiles.makeDirectory("owned-store")
        let nobody: uid_t = 65534
        #expect(chown(store.path, nobody, gid_t(nobody)) == 0)
        let file = AccessTokenFile(storeDirectory: store.path)
        try file.rotate()
        var info = stat()
        #expect(stat(file.path, &info) == 0)
        #expect(info.st_uid == nobody)
        #expect(info.st_mode & 0o777 == 0o600)
    }
}
