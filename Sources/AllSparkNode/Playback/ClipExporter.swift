import CFFmpeg
import Foundation

/// Joins the chunks of a time range into one MP4 without re-encoding. The clip starts at
/// the keyframe at or before the range's start (so it decodes from its first frame) and
/// ends with the GOP that holds the range's end.
public enum ClipExporter {
    public struct Summary: Sendable, Equatable {
        public let frames: Int
        public let firstFrameMs: Int64
        public let lastFrameMs: Int64
    }

    public enum Failure: Error, CustomStringConvertible {
        case noFrames
        public var description: String { "no frames in that range" }
    }

    /// Writes the clip to `outputPath`. `chunks` are the overlapping chunks, oldest first;
    /// their files are in `storeDirectory` unless `elsewhere` gives a path by file name
    /// (chunks read back from the archive).
    public static func export(
        chunks: [ChunkRecord], storeDirectory: URL, elsewhere: [String: String] = [:], startMs: Int64, endMs: Int64, to outputPath: String
    ) throws -> Summary {
        guard let first = chunks.first else { throw Failure.noFrames }
        func path(of chunk: ChunkRecord) -> String { elsewhere[chunk.fileName] ?? storeDirectory.appendingPathComponent(chunk.fileName).path }
        let firstPath = path(of: first)
        let startKeyframeMs = try lastKeyframe(atOrBefore: startMs, in: firstPath, chunkStartMs: first.startMs)
        let millisecond = AVRational(num: 1, den: 1000)
        var muxer: FragmentedMuxer?
        var referenceParameters: (width: Int32, height: Int32)?
        var frames = 0
        var lastDts = Int64.min
        var firstFrameMs = Int64.max
        var lastFrameMs = Int64.min
        var finished = false
        // Packets are written one behind, so the last one's duration can be stretched to the
        // latest presentation time: the muxer's edit list ends at the last packet's dts plus its
        // duration, and with B-frames that packet is not the last one shown.
        var held: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&held) }
        guard let held else { throw LibavError("allocating a packet", code: allspark_averror(ENOMEM)) }
        var holding = false
        var frameDurationMs: Int64 = 1
        var lastFrameRate = AVRational(num: 0, den: 0)
        let signatures = ClipSignatures()
        var collectingSignatures = true

        for chunk in chunks where !finished {
            let reader = try ChunkReader(path: path(of: chunk))
            let parameters = reader.codecParameters
            let size = (parameters.pointee.width, parameters.pointee.height)
            // A change of picture size means another encoder session: the clip ends there.
            if let referenceParameters, referenceParameters != size { break }
            referenceParameters = size
            lastFrameRate = reader.frameRate
            var chunkFirstPts: Int64?
            try reader.forEachPacket { packet in
                guard !finished else {
                    if collectingSignatures { collectingSignatures = signatures.observeAfterClip(packet, clipEndMs: lastFrameMs) }
                    return
                }
                let pts = av_rescale_q(packet.pointee.pts, reader.timeBase, millisecond)
                let dts = av_rescale_q(packet.pointee.dts, reader.timeBase, millisecond)
                let firstPts = chunkFirstPts ?? pts
                chunkFirstPts = firstPts
                let frameMs = chunk.startMs + pts - firstPts
                let isKeyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
                if isKeyframe && frameMs >= endMs && frames > 0 {
                    finished = true
                    collectingSignatures = signatures.observeAfterClip(packet, clipEndMs: lastFrameMs)
                    return
                }
                guard muxer != nil || (isKeyframe && frameMs >= startKeyframeMs) else {
                    signatures.observeBeforeClip(packet)
                    return
                }
                var packet = packet
                if muxer == nil {
                    muxer = try FragmentedMuxer(path: outputPath, format: .mp4, codecParameters: parameters, layout: .progressive)
                    packet = try signatures.firstPacket(packet)
                }
                packet.pointee.pts = frameMs - startKeyframeMs
                packet.pointee.dts = max(chunk.startMs + dts - firstPts - startKeyframeMs, lastDts + 1)
                packet.pointee.duration = av_rescale_q(packet.pointee.duration, reader.timeBase, millisecond)
                frameDurationMs = max(1, packet.pointee.duration)
                lastDts = packet.pointee.dts
                if holding { try muxer!.write(held) }
                av_packet_unref(held)
                try checkLibav(av_packet_ref(held, packet), "keeping a packet")
                holding = true
                frames += 1
                firstFrameMs = min(firstFrameMs, frameMs)
                lastFrameMs = max(lastFrameMs, frameMs)
            }
        }
        guard let muxer, frames > 0 else { throw Failure.noFrames }
        held.pointee.duration = max(held.pointee.duration, lastFrameMs - startKeyframeMs + frameDurationMs - held.pointee.dts)
        let last = try signatures.lastPacket(held)
        if last != held {   // it carries the SEIs that sign the clip's end behind its picture
            last.pointee.duration = LastFrameDuration.milliseconds(atLeast: last.pointee.duration, frameRate: lastFrameRate)
        }
        try muxer.write(last)
        try muxer.finish()
        return Summary(frames: frames, firstFrameMs: firstFrameMs, lastFrameMs: lastFrameMs)
    }

    /// Capture time of the last keyframe at or before `targetMs` (the chunk's first frame if none is).
    private static func lastKeyframe(atOrBefore targetMs: Int64, in path: String, chunkStartMs: Int64) throws -> Int64 {
        let reader = try ChunkReader(path: path)
        var firstPts: Int64?
        var found = chunkStartMs
        reader.forEachPacket { packet in
            let pts = av_rescale_q(packet.pointee.pts, reader.timeBase, AVRational(num: 1, den: 1000))
            let first = firstPts ?? pts
            firstPts = first
            let frameMs = chunkStartMs + pts - first
            if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 && frameMs <= targetMs { found = max(found, frameMs) }
        }
        return found
    }
}
