import Foundation

/// What the archive knows of one chunk, stored as a small JSON object beside the chunk's
/// two files. The archive is listed by these manifests: they say which files belong
/// together, the frame times they cover and the checksums to verify them by. A manifest is
/// written last, so a chunk is in the archive exactly when its manifest is.
public struct ArchiveManifest: Sendable, Codable, Equatable {
    public static let version = 1

    public var manifestVersion = Self.version
    public let node: String
    public let stamp: String
    public let format: VideoFormat
    public let chunkFile: String
    public let timestampsFile: String
    /// Capture times of the first and last frame, epoch ms.
    public let firstFrameMs: Int64
    public let lastFrameMs: Int64
    public let frames: Int
    public let chunkBytes: Int64
    public let timestampsBytes: Int64
    public let chunkSHA256: String
    public let timestampsSHA256: String
    public let archivedAtMs: Int64

    init(node: String, record: ChunkRecord, chunk: FileDigest, timestamps: FileDigest, archivedAtMs: Int64) {
        self.node = node
        stamp = record.stamp
        format = record.format
        chunkFile = record.fileName
        timestampsFile = record.timestampsFileName
        firstFrameMs = record.startMs
        lastFrameMs = record.endMs
        frames = record.frameCount
        chunkBytes = chunk.size
        timestampsBytes = timestamps.size
        chunkSHA256 = chunk.sha256
        timestampsSHA256 = timestamps.sha256
        self.archivedAtMs = archivedAtMs
    }

    /// The chunk as the store and the protocol describe chunks.
    public var record: ChunkRecord {
        ChunkRecord(
            stamp: stamp, format: format, startMs: firstFrameMs, endMs: lastFrameMs, frameCount: frames,
            chunkBytes: chunkBytes, timestampsBytes: timestampsBytes)
    }

    /// Whether the manifest names two plain files of one chunk: a manifest read from a
    /// bucket is outside data, and its names become local file names and keys.
    var isWellFormed: Bool {
        chunkFile == ChunkNaming.chunkFileName(stamp: stamp, format: format)
            && timestampsFile == ChunkNaming.timestampsFileName(stamp: stamp)
            && ChunkNaming.startMs(ofStamp: stamp) != nil
            && firstFrameMs <= lastFrameMs && frames > 0 && chunkBytes > 0 && timestampsBytes >= 0
    }

    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }

    static func decode(_ bytes: some Collection<UInt8>) throws -> ArchiveManifest {
        try JSONDecoder().decode(ArchiveManifest.self, from: Data(bytes))
    }
}

/// Where each object of the archive lives under the key prefix: the chunk's two files
/// under their own names, the manifests apart under `manifests/` so that listing them
/// lists the archive.
public struct ArchiveLayout: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String) {
        self.prefix = prefix
    }

    public func key(forFile name: String) -> String { prefix + name }
    public var manifestsPrefix: String { prefix + "manifests/" }
    public func manifestKey(stamp: String) -> String { manifestsPrefix + stamp + ".json" }
    /// Holds placed on this node's archived footage from elsewhere (`fleet hold` while the node
    /// was down), in the holds file's format; the node's archive-age deletion honours them.
    public var holdsKey: String { prefix + "holds.json" }
}
