import Foundation

/// Whether a clip of these chunks may be made. A remuxed clip holds at most the chunks'
/// frames plus its index, so its size is bounded before it is made; that bound must stay
/// under `server.maxClipMB` and fit in the clip directory above the free-space floor the
/// store keeps, so a clip does not make the store evict footage for room.
struct ClipBudget {
    /// The clip's index: sample size, time and offset entries per frame, and the headers.
    static let indexBytesPerFrame: Int64 = 32
    static let headerBytes: Int64 = 64 << 10

    enum Refusal: Error, CustomStringConvertible {
        case tooLarge(boundBytes: Int64, maximumBytes: Int64)
        case noSpace(boundBytes: Int64, availableBytes: Int64, directory: String)

        var description: String {
            switch self {
            case .tooLarge(let bound, let maximum):
                "the range holds \(Self.mebibytes(bound)) MiB of recordings, more than the clip limit of "
                    + "\(Self.mebibytes(maximum)) MiB (server.maxClipMB): ask for a shorter range, or download "
                    + "its chunks (GET /api/chunks?start=&end= lists them)"
            case .noSpace(let bound, let available, let directory):
                "a clip of this range needs up to \(Self.mebibytes(bound)) MiB in \(directory), which has "
                    + "\(Self.mebibytes(max(0, available))) MiB free: ask for a shorter range, or set TMPDIR to a larger disk"
            }
        }

        private static func mebibytes(_ bytes: Int64) -> String {
            String(format: "%.1f", Double(bytes) / 1_048_576)
        }
    }

    /// The most bytes a clip of `chunks` can take.
    static func boundBytes(of chunks: [ChunkRecord]) -> Int64 {
        chunks.reduce(headerBytes) { $0 + $1.chunkBytes + Int64($1.frameCount) * indexBytesPerFrame }
    }

    /// - Throws: `Refusal` saying why no clip of `chunks` is made.
    static func check(_ chunks: [ChunkRecord], maximumBytes: Int64, clipDirectory: URL) throws(Refusal) {
        let bound = boundBytes(of: chunks)
        guard bound <= maximumBytes else { throw .tooLarge(boundBytes: bound, maximumBytes: maximumBytes) }
        guard let free = DurableFile.availableBytes(at: clipDirectory.path) else { return }
        let available = free - ChunkStore.freeSpaceFloorBytes
        guard bound <= available else { throw .noSpace(boundBytes: bound, availableBytes: available, directory: clipDirectory.path) }
    }
}
