import Foundation
import Logging

/// Rebuilds the chunk index from the store directory at start-up: recovers part files left
/// by a crash, rebuilds missing timestamps files from the chunks' own packet times, and
/// removes files that belong to no chunk. In read-only mode (listing a store that a node
/// may be writing) it changes nothing and skips what it would have repaired.
struct ChunkIndexBuilder {
    let directory: URL
    let logger: Logger
    var readOnly = false

    func rebuild() -> [ChunkRecord] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var chunkFiles: [(stamp: String, format: VideoFormat)] = []
        var sidecarStamps = Set<String>()
        var records: [ChunkRecord] = []
        for name in names {
            switch ChunkNaming.classify(name) {
            case .leftover:
                if !readOnly { unlink(path(name)) }
            case .part(let stamp, let format):
                if !readOnly, let record = ChunkRecovery.recoverPart(stamp: stamp, format: format, in: directory, logger: logger) {
                    records.append(record)
                }
            case .chunk(let stamp, let format):
                chunkFiles.append((stamp, format))
            case .timestamps(let stamp):
                sidecarStamps.insert(stamp)
            case .other:
                continue
            }
        }
        let recoveredStamps = Set(records.map(\.stamp))
        for (stamp, format) in chunkFiles where !recoveredStamps.contains(stamp) {
            if let record = index(stamp: stamp, format: format) { records.append(record) }
        }
        let indexedStamps = Set(records.map(\.stamp))
        for stamp in sidecarStamps.subtracting(indexedStamps) where !readOnly {
            unlink(path(ChunkNaming.timestampsFileName(stamp: stamp)))
        }
        return records.sorted { $0.startMs < $1.startMs }
    }

    private func index(stamp: String, format: VideoFormat) -> ChunkRecord? {
        let chunkName = ChunkNaming.chunkFileName(stamp: stamp, format: format)
        let sidecarName = ChunkNaming.timestampsFileName(stamp: stamp)
        if let times = TimestampsFile.read(path: path(sidecarName)) {
            return ChunkRecord(
                stamp: stamp, format: format, startMs: times.first!, endMs: times.last!, frameCount: times.count,
                chunkBytes: DurableFile.size(of: path(chunkName)), timestampsBytes: DurableFile.size(of: path(sidecarName)))
        }
        // The timestamps file is missing or damaged: the chunk's frames carry the same times.
        guard !readOnly else { return nil }
        guard let times = ChunkFrameTimes.read(path: path(chunkName), nameStartMs: ChunkNaming.startMs(ofStamp: stamp)) else {
            logger.error("removed \(chunkName): it holds no readable frame")
            unlink(path(chunkName))
            unlink(path(sidecarName))
            return nil
        }
        do {
            let bytes = try DurableFile.write(TimestampsFile.render(times), to: path(".\(sidecarName).tmp"))
            try DurableFile.rename(path(".\(sidecarName).tmp"), to: path(sidecarName))
            logger.notice("rebuilt \(sidecarName) from \(chunkName)")
            return ChunkRecord(
                stamp: stamp, format: format, startMs: times.first!, endMs: times.last!, frameCount: times.count,
                chunkBytes: DurableFile.size(of: path(chunkName)), timestampsBytes: bytes)
        } catch {
            logger.error("could not rebuild \(sidecarName): \(error)")
            return nil
        }
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
