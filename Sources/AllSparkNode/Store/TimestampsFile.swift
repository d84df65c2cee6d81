import Foundation

/// The per-chunk sidecar: one wall-clock epoch-ms integer per frame, in frame order.
enum TimestampsFile {
    static func render(_ frameTimesMs: [Int64]) -> String {
        var text = ""
        text.reserveCapacity(frameTimesMs.count * 14)
        for time in frameTimesMs {
            text += String(time)
            text += "\n"
        }
        return text
    }

    static func read(path: String) -> [Int64]? {
        guard let text = try? TextFile.read(path) else { return nil }
        var times: [Int64] = []
        for line in text.split(separator: "\n") {
            guard let time = Int64(line) else { return nil }
            times.append(time)
        }
        return times.isEmpty ? nil : times
    }

    /// Upper bound of a sidecar's size for `frames` frames (13-digit ms plus newline, with room to spare).
    static func maximumBytes(frames: Int) -> Int64 { Int64(frames) * 16 }

    /// Publishes a chunk: writes its timestamps file, renames the finished chunk from its
    /// temporary name, and syncs both names to disk. The sidecar is published first, so a
    /// crash in between leaves at worst a sidecar without a chunk, which start-up removes.
    static func write(
        frameTimesMs: [Int64], stamp: String, format: VideoFormat, chunkTemporaryPath: String, in directory: URL
    ) throws -> ChunkRecord {
        let sidecarPath = directory.appendingPathComponent(ChunkNaming.timestampsFileName(stamp: stamp)).path
        let chunkPath = directory.appendingPathComponent(ChunkNaming.chunkFileName(stamp: stamp, format: format)).path
        let sidecarTemporaryPath = directory.appendingPathComponent(".timestamps_\(stamp).txt.tmp").path
        let sidecarBytes = try DurableFile.write(render(frameTimesMs), to: sidecarTemporaryPath)
        try DurableFile.rename(sidecarTemporaryPath, to: sidecarPath)
        try DurableFile.rename(chunkTemporaryPath, to: chunkPath)
        DurableFile.syncDirectory(directory.path)
        return ChunkRecord(
            stamp: stamp, format: format, startMs: frameTimesMs.first!, endMs: frameTimesMs.last!,
            frameCount: frameTimesMs.count, chunkBytes: DurableFile.size(of: chunkPath), timestampsBytes: sidecarBytes)
    }
}
