import Foundation
import Logging
@testable import AllSparkNode

/// A node's services as `allspark-node run` builds them (test pattern, no privacy, not
/// announced), over a store folder of its own, never run: for what is made from them (the
/// router, /metrics). The folder is removed once `body` returns.
enum TestNode {
    static func withServices<Result>(_ label: String, _ body: (NodeServices, Logger) throws -> Result) throws -> Result {
        let store = try TestFiles.makeDirectory(label)
        defer { try? FileManager.default.removeItem(at: store) }
        var config = NodeConfig()
        config.source = "testsrc"
        config.privacy = "none"
        config.storeDirectory = store.path
        config.server.announce = false
        var logger = Logger(label: "test-\(label)")
        logger.logLevel = .warning
        return try body(try CameraNode(config: config, logger: logger).services, logger)
    }
}
