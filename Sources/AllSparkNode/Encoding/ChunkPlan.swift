/// A chunk decided on the capture side: it starts at the frame captured at `startMs`,
/// which the encoder turns into an IDR frame with pts `encoderPts`.
struct ChunkPlan: Equatable {
    let startMs: Int64
    let encoderPts: Int64
    let format: VideoFormat
    let durationMs: Int
    let expectedFrames: Int

    var stamp: String { ChunkNaming.stamp(forMs: startMs) }

    /// Whether a frame captured at `captureTimeMs` belongs to the next chunk.
    func isOver(at captureTimeMs: Int64) -> Bool { captureTimeMs >= startMs + Int64(durationMs) }
}
