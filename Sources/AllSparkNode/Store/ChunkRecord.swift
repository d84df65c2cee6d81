/// One finished chunk in the store, with the facts read from its own files.
public struct ChunkRecord: Sendable, Equatable, Codable {
    /// `<epochSeconds>.<milliseconds>` of the first frame, as used in both file names.
    public let stamp: String
    public let format: VideoFormat
    /// Capture time of the first and the last frame, epoch ms.
    public let startMs: Int64
    public let endMs: Int64
    public let frameCount: Int
    public let chunkBytes: Int64
    public let timestampsBytes: Int64

    public init(stamp: String, format: VideoFormat, startMs: Int64, endMs: Int64, frameCount: Int, chunkBytes: Int64, timestampsBytes: Int64) {
        self.stamp = stamp
        self.format = format
        self.startMs = startMs
        self.endMs = endMs
        self.frameCount = frameCount
        self.chunkBytes = chunkBytes
        self.timestampsBytes = timestampsBytes
    }

    public var fileName: String { ChunkNaming.chunkFileName(stamp: stamp, format: format) }
    public var timestampsFileName: String { ChunkNaming.timestampsFileName(stamp: stamp) }
    public var totalBytes: Int64 { chunkBytes + timestampsBytes }

    /// True when the chunk's frames fall in [startMs, endMs): its first frame is before the
    /// range's end and its last frame is at or after the range's start.
    public func overlaps(startMs rangeStart: Int64, endMs rangeEnd: Int64) -> Bool {
        startMs < rangeEnd && endMs >= rangeStart
    }
}

extension VideoFormat: Codable {}
