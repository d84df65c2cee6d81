/// About how many bytes the next chunk takes, judged by the chunks recorded last: how much
/// room a full disk must have again before recording is tried, and what health reports.
struct ChunkSizeEstimate {
    static let remembered = 5
    /// A shorter chunk is mostly its keyframe and says little about the rest.
    static let minimumFrames = 10
    /// Bytes per frame of the last `remembered` chunks long enough to judge by.
    private var bytesPerFrame: [Int64] = []
    private var nextSlot = 0

    init(seed: some Sequence<ChunkRecord>) {
        bytesPerFrame.reserveCapacity(Self.remembered)
        for record in seed { add(record) }
    }

    mutating func add(_ record: ChunkRecord) {
        guard record.frameCount >= Self.minimumFrames else { return }
        let perFrame = record.chunkBytes / Int64(record.frameCount)
        if bytesPerFrame.count < Self.remembered {
            bytesPerFrame.append(perFrame)
        } else {
            bytesPerFrame[nextSlot] = perFrame
        }
        nextSlot = (nextSlot + 1) % Self.remembered
    }

    /// The busiest recent chunk's bytes per frame times a chunk's frames, plus its
    /// timestamps file. Before any chunk is known: one bit per pixel per frame, generous
    /// for H.264 at these sizes.
    func bytes(frames: Int, width: Int, height: Int) -> Int64 {
        let perFrame = bytesPerFrame.max() ?? Int64(max(1, width * height / 8))
        return perFrame * Int64(max(1, frames)) + TimestampsFile.maximumBytes(frames: max(1, frames))
    }
}
