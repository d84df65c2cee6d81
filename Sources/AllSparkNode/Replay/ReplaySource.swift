import CFFmpeg
import Foundation
import Synchronization

/// One replay client's footage: the recorded access units, as they were encoded and
/// signed, from the key frame at or before a PLAY's start (or the next footage after a gap)
/// to its end, or to the end of the store; from the archive where the ring has let go.
///
/// GStreamer calls it on two threads: `resolve` on the one that seeks; `seek` and `fill` on
/// the streaming side, never at once (the source's stream lock and the shim's lock order
/// them). Only the request handed from `resolve` to `seek` is shared, behind its mutex.
final class ReplaySource: @unchecked Sendable {
    /// How the last PLAY asked to play.
    struct Request: Sendable, Equatable {
        var stopNs: UInt64?
        var rate = 1.0
        var keyFramesOnly = false
    }

    /// One recorded access unit, Annex B, in the reader's packet until the next is read.
    struct Frame {
        let ns: UInt64
        let isKeyframe: Bool
        let packet: UnsafeMutablePointer<AVPacket>
    }

    private let footage: ReplayFootage
    /// Archived chunks fetched for this client (nil without an archive).
    private let archivedFiles: ArchivedChunkFiles?
    private let requested = Mutex<Request>(Request())

    private var request = Request()
    private var queue: [ReplayChunk] = []
    private var reader: ChunkReader?
    private var filter: AnnexBFilter?
    private var chunk: ChunkRecord?
    private var chunkFirstPts: Int64?
    /// Frames before this are read but not sent (they lead up to the position a seek asked for).
    private var fromNs: UInt64 = 0
    /// The continuous section being sent: its first frame's time and the running time it
    /// starts at (gaps are not waited out).
    private var section: (startNs: UInt64, baseNs: UInt64)?
    private var lastReadNs: UInt64?
    private var sectionBroken = false
    private var ended = false

    init(footage: ReplayFootage) {
        self.footage = footage
        archivedFiles = footage.archive.map(ArchivedChunkFiles.init)
        // Until the first PLAY seeks, the ring's recording from its start (the client's
        // DESCRIBE needs frames to learn the stream's parameters; the archive is not asked).
        position(at: NTPTime.nanoseconds(unixMs: footage.heldChunks(from: .min).first?.record.startMs ?? 0))
    }

    /// Where a PLAY of [startNs, stopNs] starts: the key frame at or before `startNs`, or the
    /// first frame of the next footage when `startNs` is in a gap; nil when no footage
    /// follows (before `stopNs`).
    func resolve(startNs: UInt64, stopNs: UInt64?, rate: Double, keyFramesOnly: Bool) -> UInt64? {
        requested.withLock { $0 = Request(stopNs: stopNs, rate: rate > 0 ? rate : 1, keyFramesOnly: keyFramesOnly) }
        let startMs = NTPTime.unixMs(startNs)
        for candidate in footage.chunks(from: startMs) {
            guard let keyframe = withFile(of: candidate, { Self.keyframe(atOrBefore: startNs, in: candidate.record, path: $0) }) else {
                continue
            }
            if let stopNs, keyframe > stopNs { return nil }
            return keyframe
        }
        return nil
    }

    /// The pipeline was flushed for a seek: the next frames sent start at `positionNs`.
    func seek(to positionNs: UInt64) {
        request = requested.withLock { $0 }
        position(at: positionNs)
    }

    /// The next frame to send, nil at the end of this PLAY's footage.
    func nextFrame() -> Frame? {
        guard !ended else { return nil }
        while let frame = readFrame() {
            if frame.ns < fromNs || (request.keyFramesOnly && !frame.isKeyframe) {
                av_packet_unref(frame.packet)
                continue
            }
            if let stopNs = request.stopNs, frame.ns > stopNs {
                av_packet_unref(frame.packet)
                break
            }
            return frame
        }
        ended = true
        reader = nil
        return nil
    }

    /// The section `frame` belongs to, and whether it is the first frame after a gap.
    func section(of frame: Frame) -> (startNs: UInt64, baseNs: UInt64, discont: Bool) {
        if section == nil { section = (frame.ns, 0) }
        let discont = sectionBroken
        sectionBroken = false
        return (section!.startNs, section!.baseNs, discont)
    }

    private func position(at positionNs: UInt64) {
        fromNs = positionNs
        queue = footage.chunks(from: NTPTime.unixMs(positionNs))
        reader = nil
        filter = nil
        chunk = nil
        section = nil
        lastReadNs = nil
        sectionBroken = false
        ended = false
    }

    private func readFrame() -> Frame? {
        while true {
            if reader == nil {
                guard !queue.isEmpty else { return nil }
                open(queue.removeFirst())
                continue
            }
            guard let reader, let filter, let chunk, let packet = reader.nextPacket() else {
                reader = nil
                continue
            }
            let pts = packet.pointee.pts != allspark_nopts_value() ? packet.pointee.pts : packet.pointee.dts
            let firstPts = chunkFirstPts ?? pts
            chunkFirstPts = firstPts
            let ns = Self.frameNs(chunk: chunk, ptsFromFirst: pts - firstPts, timeBase: reader.timeBase)
            let isKeyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
            noteRead(ns)
            guard filter.convert(packet) else { continue }
            return Frame(ns: ns, isKeyframe: isKeyframe, packet: packet)
        }
    }

    /// A hole longer than the recording's gap tolerance starts a new section: its running
    /// time goes on from where the last one's ended, so a paced replay skips the gap.
    private func noteRead(_ ns: UInt64) {
        defer { lastReadNs = max(lastReadNs ?? 0, ns) }
        guard let last = lastReadNs, let current = section,
            ns > last + UInt64(RecordingTimeline.toleranceMs) * 1_000_000
        else { return }
        let played = Double(last - current.startNs) / request.rate
        section = (ns, current.baseNs + UInt64(played))
        sectionBroken = true
    }

    private func open(_ next: ReplayChunk) {
        // A chunk evicted since the list was taken (or that the bucket does not give) is
        // skipped; the rest still play.
        guard let opened = withFile(of: next, { try? ChunkReader(path: $0) }),
            let annexB = try? AnnexBFilter(codecParameters: opened.codecParameters, timeBase: opened.timeBase)
        else { return }
        reader = opened
        filter = annexB
        chunk = next.record
        chunkFirstPts = nil
    }

    /// `body` with the path of `chunk`'s file: in the store, copied from the archive, or a
    /// copy of what the recorder has written of it so far (removed after `body`: a reader
    /// that opened it keeps reading). Nil when there is no such file.
    private func withFile<T>(of chunk: ReplayChunk, _ body: (String) -> T?) -> T? {
        switch chunk {
        case .held(let record):
            return body(footage.path(of: record))
        case .archived(let manifest):
            return archivedFiles?.path(of: manifest).flatMap(body)
        case .writing(let stamp, let format, _):
            let directory = footage.store.directory
            let finished = directory.appendingPathComponent(ChunkNaming.chunkFileName(stamp: stamp, format: format)).path
            // Finished since the list was taken: the whole chunk.
            if FileManager.default.fileExists(atPath: finished) { return body(finished) }
            // Named as the store's own temporary files, which a restart clears.
            let copy = directory.appendingPathComponent(".chunk_\(stamp).replay-\(UUID().uuidString).tmp").path
            defer { unlink(copy) }
            let part = directory.appendingPathComponent(ChunkNaming.partFileName(stamp: stamp, format: format)).path
            guard (try? WritingChunkSnapshot.copy(partPath: part, to: copy)) == true else {
                return FileManager.default.fileExists(atPath: finished) ? body(finished) : nil
            }
            return body(copy)
        }
    }

    static func frameNs(chunk: ChunkRecord, ptsFromFirst: Int64, timeBase: AVRational) -> UInt64 {
        let offset = av_rescale_q(ptsFromFirst, timeBase, AVRational(num: 1, den: 1_000_000_000))
        return NTPTime.nanoseconds(unixMs: chunk.startMs) &+ UInt64(bitPattern: offset)
    }

    /// The last key frame at or before `targetNs` in `chunk`, or its first frame when the
    /// chunk starts after `targetNs`; nil when the chunk cannot be read or all of it is
    /// before `targetNs` (the chunk being written, which the list takes whatever its end).
    static func keyframe(atOrBefore targetNs: UInt64, in chunk: ChunkRecord, path: String) -> UInt64? {
        guard let reader = try? ChunkReader(path: path) else { return nil }
        var firstPts: Int64?
        var found: UInt64?
        var lastNs: UInt64 = 0
        reader.forEachPacket { packet in
            let pts = packet.pointee.pts != allspark_nopts_value() ? packet.pointee.pts : packet.pointee.dts
            let first = firstPts ?? pts
            firstPts = first
            let ns = frameNs(chunk: chunk, ptsFromFirst: pts - first, timeBase: reader.timeBase)
            lastNs = max(lastNs, ns)
            guard packet.pointee.flags & AV_PKT_FLAG_KEY != 0 else { return }
            if found == nil || ns <= targetNs { found = ns }
        }
        return lastNs >= targetNs ? found : nil
    }
}
