import Foundation
@testable import AllSparkNode

/// The node's own files as it finds them at start: after a crash, a power cut, or a hand
/// that edited them.
enum StoreFileTargets {
    static let holdsFile = FuzzTarget(name: "holds-file", parses: "holds.json in the store") { bytes in
        guard let holds = try? HoldsFile.decode(Data(bytes)) else { return }
        let again = try! HoldsFile.decode(HoldsFile.encode(holds))
        precondition(again == holds, "holds that do not read back as written")
    }

    static let timestampsFile = FuzzTarget(name: "timestamps-file", parses: "timestamps_*.txt sidecars") { bytes in
        let path = FuzzScratch.file("timestamps.txt", bytes)
        guard let times = TimestampsFile.read(path: path) else { return }
        precondition(!times.isEmpty, "an empty sidecar read as times")
    }

    /// File names in the store directory (anyone with access may leave files there).
    static let chunkNames = FuzzTarget(name: "chunk-names", parses: "file names in the store directory") { bytes in
        let name = FuzzInput.text(bytes)
        switch ChunkNaming.classify(name) {
        case .chunk(let stamp, let format):
            precondition(ChunkNaming.chunkFileName(stamp: stamp, format: format) == name, "a chunk name that does not rebuild")
            _ = ChunkNaming.startMs(ofStamp: stamp)
        case .timestamps(let stamp):
            precondition(ChunkNaming.timestampsFileName(stamp: stamp) == name, "a sidecar name that does not rebuild")
            _ = ChunkNaming.startMs(ofStamp: stamp)
        case .part(let stamp, let format):
            precondition(ChunkNaming.partFileName(stamp: stamp, format: format) == name, "a part name that does not rebuild")
        default:
            break
        }
    }

    /// The config file: YAML, then every value checked as the node checks them at start.
    static let configFile = FuzzTarget(name: "config-file", parses: "the YAML config file") { bytes in
        let path = FuzzScratch.file("node.yaml", bytes)
        guard let values = try? ConfigLoader.readYAML(path: path) else { return }
        _ = try? ConfigLoader.layered([values])
    }

    /// The runtime config the node writes beside its chunks and reads back at start.
    static let runtimeConfigFile = FuzzTarget(name: "runtime-config-file", parses: "runtime-config.yaml in the store") { bytes in
        let directory = FuzzScratch.directory + "/runtime"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = RuntimeConfigFile(storeDirectory: directory)
        FileManager.default.createFile(atPath: file.path, contents: Data(bytes))
        guard let values = try? file.load() else { return }
        let live = LiveConfiguration(config: NodeConfig(), recorder: nil, logger: FuzzLogging.silent)
        _ = try? live.apply(Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }))
    }
}
