import Foundation
import Testing
@testable import AllSparkNode

struct ConfigTests {
    private func writeYAML(_ text: String) throws -> String {
        let url = try TestFiles.makeDirectory("config").appendingPathComponent("node.yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("the shipped config file parses and equals the built-in defaults")
    func shippedConfigMatchesDefaults() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/allspark-node.yaml").path
        let values = try ConfigLoader.readYAML(path: path)
        #expect(Set(values.map(\.key)) == Set(ConfigKeys.all.map(\.name)), "every key is documented in the file")
        #expect(try ConfigLoader.layered([values]) == NodeConfig())
    }

    @Test("precedence: file < environment < flags, nested YAML keys become dotted names")
    func precedence() throws {
        let path = try writeYAML("""
            videoChunkDurationMs: 5000
            fps: 25
            encoder:
              preset: faster
              crf: 30
            """)
        let store = try TestFiles.makeDirectory("precedence").path
        let config = try ConfigLoader(
            filePath: path,
            environment: ["ALLSPARK_FPS": "15", "ALLSPARK_ENCODER_CRF": "28", "ALLSPARK_STORE": store],
            flags: [("fps", .number(10))]
        ).load()
        #expect(config.videoChunkDurationMs == 5000)
        #expect(config.encoder.preset == "faster")
        #expect(config.encoder.crf == 28)
        #expect(config.fps == 10)
        #expect(config.storeDirectory == store)
    }

    @Test("environment names are derived from the keys")
    func environmentNames() {
        #expect(ConfigKeys.named("videoChunkDurationMs")?.environmentName == "ALLSPARK_VIDEO_CHUNK_DURATION_MS")
        #expect(ConfigKeys.named("videoBufferMaxMB")?.environmentName == "ALLSPARK_VIDEO_BUFFER_MAX_MB")
        #expect(ConfigKeys.named("encoder.keyframeIntervalMs")?.environmentName == "ALLSPARK_ENCODER_KEYFRAME_INTERVAL_MS")
    }

    @Test(
        "invalid values are refused with the key and the allowed range",
        arguments: [
            ("videoChunkDurationMs", ConfigValue.number(999), "1000...3600000"),
            ("videoChunkDurationMs", .text("thirty"), "1000...3600000"),
            ("videoChunkDurationMs", .number(1500.5), "1000...3600000"),
            ("videoBufferMaxMB", .number(-1), "0.25"),
            ("videoBufferMaxMB", .number(.nan), "0.25"),
            ("videoFormat", .text("avi"), "mp4, mov"),
            ("fps", .flag(true), "1.0...120.0"),
            ("width", .number(641), "even"),
            ("encoder.preset", .text("ludicrous"), "veryfast"),
            ("privacy", .text("off"), "face, body, none"),
            ("store", .text(""), "directory"),
        ])
    func invalidValues(key: String, value: ConfigValue, allowedPart: String) throws {
        var config = NodeConfig()
        let error = try #require(throws: ConfigError.self) { try ConfigKeys.named(key)!.apply(value, to: &config) }
        #expect(error.key == key)
        #expect(error.description.contains(key) && error.description.contains(allowedPart), "\(error)")
        #expect(config == NodeConfig(), "a refused value changes nothing")
    }

    @Test("a config file with an unknown key or bad YAML is refused, naming the problem")
    func badFiles() throws {
        let typo = try writeYAML("videoChunkDurationMS: 2000\n")
        #expect(throws: ConfigError.unknownKey("videoChunkDurationMS", source: typo)) {
            try ConfigLoader(filePath: typo, environment: [:], flags: []).load()
        }
        let broken = try writeYAML("fps: [30\n")
        let error = try #require(throws: ConfigError.self) { try ConfigLoader(filePath: broken, environment: [:], flags: []).load() }
        #expect(error.description.contains("not valid YAML"))
        #expect(throws: ConfigError.self) { try ConfigLoader(filePath: "/nonexistent/node.yaml", environment: [:], flags: []).load() }
    }

    @Test("runtime changes persist in the store and come back at the next start, below environment and flags")
    func runtimePersistence() throws {
        let store = try TestFiles.makeDirectory("runtime").path
        var changed = NodeConfig()
        changed.storeDirectory = store
        changed.videoFormat = .mov
        changed.videoChunkDurationMs = 12_000
        changed.videoBufferMaxMB = 2.5
        try RuntimeConfigFile(storeDirectory: store).save(changed)

        let reloaded = try ConfigLoader(filePath: nil, environment: [:], flags: [("store", .text(store))]).load()
        #expect(reloaded.videoFormat == .mov && reloaded.videoChunkDurationMs == 12_000 && reloaded.videoBufferMaxMB == 2.5)
        let overridden = try ConfigLoader(
            filePath: nil, environment: ["ALLSPARK_VIDEO_FORMAT": "mp4"], flags: [("store", .text(store))]
        ).load()
        #expect(overridden.videoFormat == .mp4 && overridden.videoChunkDurationMs == 12_000)
    }
}
