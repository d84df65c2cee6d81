import CFFmpeg

/// What a chunk or clip says about its own time, from the file alone: each frame's
/// `PrecisionTimeStampSEI` and the container's duration.
public struct StreamTimeProbe: Sendable, Equatable {
    public let frameCount: Int
    /// Frames' capture times (epoch ms) in presentation order; frames without a time stamp are left out.
    public let frameTimesMs: [Int64]
    /// The container's duration, when it states one.
    public let durationMs: Int64?

    public var firstFrameMs: Int64? { frameTimesMs.first }
    public var lastFrameMs: Int64? { frameTimesMs.last }
    /// Whether every frame carries its time.
    public var isFullyStamped: Bool { frameCount > 0 && frameTimesMs.count == frameCount }

    public static func read(path: String) throws -> StreamTimeProbe {
        let reader = try ChunkReader(path: path)
        var frames: [(pts: Int64, epochMicroseconds: Int64?)] = []
        reader.forEachPacket { packet in
            let pts = packet.pointee.pts != allspark_nopts_value() ? packet.pointee.pts : packet.pointee.dts
            frames.append((pts, packet.pointee.data.flatMap { epochMicroseconds(in: UnsafeRawBufferPointer(start: $0, count: Int(packet.pointee.size))) }))
        }
        frames.sort { $0.pts < $1.pts }
        return StreamTimeProbe(
            frameCount: frames.count,
            frameTimesMs: frames.compactMap { $0.epochMicroseconds.map { ($0 + 500) / 1000 } },
            durationMs: reader.durationMs)
    }

    /// The time stamp of one access unit, if it carries one.
    static func epochMicroseconds(in data: UnsafeRawBufferPointer) -> Int64? {
        var found: Int64?
        H264Framing.of(data).forEachNAL(in: data) { _, nal in
            found = PrecisionTimeStampSEI.read(nal: nal)
            return found == nil
        }
        return found
    }
}
