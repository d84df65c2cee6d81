import CFFmpeg
import Foundation
import Logging

/// Writes one chunk: encoded packets go to the hidden part file `.chunk_<stamp>.<ext>.part`,
/// a fragmented file readable up to its last fragment if the node dies; `finish()` closes
/// it, turns it into an ordinary MP4/MOV in place (`ChunkFinisher`), writes the timestamps
/// file and publishes both under their final names. Every write is first reserved with the
/// store, so the store's cap holds while the file grows.
final class ChunkWriter {
    let plan: ChunkPlan
    private let store: ChunkStore
    private let muxer: FragmentedMuxer
    private let partPath: String
    private let timeStamper: PrecisionTimeStamper
    /// Signs the chunk's GOPs (nil: recording unsigned); it holds back the last frame until `finish()`.
    private let signer: MediaSigner?
    /// The encoder's nominal frame rate: the signed last frame lasts past the next frame's time.
    private let frameRate: AVRational
    /// The time stamps' clock status, as the kernel saw it when the chunk began.
    private let clockStatus = PrecisionTimeStamper.currentStatus()
    /// Each written frame's time relative to the chunk start, ms, in decode order.
    private var relativeTimesMs: [Int64] = []
    /// Bytes and packets the muxer holds for the fragment it has not written yet.
    private var pendingFragmentBytes: Int64 = 0
    private var pendingFragmentPackets = 0
    private var fileBytes: Int64 = 0

    /// Not even a chunk's header fits: no file was created.
    struct NoRoom: Error, CustomStringConvertible {
        var description: String { "no room for a new chunk" }
    }

    /// Room reserved before the part file is created: its header, with margin.
    static let headerAllowanceBytes: Int64 = 64 << 10

    init(plan: ChunkPlan, store: ChunkStore, encoder: H264Encoder, timeStamper: PrecisionTimeStamper, signer: MediaSigner?) throws {
        self.plan = plan
        self.store = store
        self.timeStamper = timeStamper
        self.signer = signer
        frameRate = encoder.context!.pointee.framerate
        guard store.reserveLiveChunk(reservedBytes: Self.headerAllowanceBytes, actualBytes: 0) else { throw NoRoom() }
        partPath = store.directory.appendingPathComponent(ChunkNaming.partFileName(stamp: plan.stamp, format: plan.format)).path
        do {
            muxer = try FragmentedMuxer(path: partPath, format: plan.format, encoder: encoder.context!)
        } catch {
            store.releaseLiveChunk()
            throw error
        }
        fileBytes = muxer.bytesWritten
        relativeTimesMs.reserveCapacity(plan.expectedFrames + plan.expectedFrames / 2)
    }

    var frameCount: Int { relativeTimesMs.count }
    /// How long the finish in place took (logged; bench/README.md's finish cost).
    private(set) var finishingDuration: Duration = .zero

    /// The most this chunk could occupy if it ended after `packetBytes` more: the file,
    /// the fragment still in memory, fragment headers and trailer, the finished file's index,
    /// its timestamps file, and the signing SEIs the held last frame gets at the end.
    private func worstCaseBytes(adding packetBytes: Int64) -> Int64 {
        let fragmentOverhead = Int64(4096 + 32 * (pendingFragmentPackets + 1))
        return fileBytes + pendingFragmentBytes + packetBytes + fragmentOverhead + Int64(signer?.maximumBytesAddedToNextPacket ?? 0)
            + ChunkFinisher.maximumAddedBytes(frames: relativeTimesMs.count + 1)
            + TimestampsFile.maximumBytes(frames: relativeTimesMs.count + 1)
    }

    /// Writes one packet whose pts/dts are relative to the encoder origin, with its capture
    /// time in the stream (`PrecisionTimeStamper`) and, when signing, the signing SEIs ready
    /// by then (`MediaSigner`). `live` gets the packet with those SEIs before any of it
    /// reaches the disk. Returns false, writing nothing, when the store cannot make room:
    /// the chunk must end here.
    func write(
        _ packet: UnsafeMutablePointer<AVPacket>, originMs: Int64, live: (UnsafeMutablePointer<AVPacket>) -> Void
    ) throws -> Bool {
        let packetBytes = Int64(packet.pointee.size) + 4 + Int64(PrecisionTimeStampSEI.maximumNALBytes)
            + Int64(signer?.maximumBytesAddedToNextPacket ?? 0)
        guard store.reserveLiveChunk(reservedBytes: worstCaseBytes(adding: packetBytes), actualBytes: fileBytes) else {
            return false
        }
        let offset = plan.startMs - originMs
        packet.pointee.pts -= offset
        packet.pointee.dts -= offset
        let relativePts = packet.pointee.pts
        // The same time as the timestamps file's, in microseconds.
        let captureMicroseconds = (plan.startMs + relativePts) * 1000
        let stamped = try timeStamper.stamped(packet, epochMicroseconds: captureMicroseconds, status: clockStatus)
        if let signer {
            let previous = try signer.pass(stamped, captureMicroseconds: captureMicroseconds, startsChunk: relativeTimesMs.isEmpty)
            if let liveView = signer.liveView { live(liveView) }
            if let previous { try muxer.write(previous) }
        } else {
            live(stamped)
            try muxer.write(stamped)
        }
        relativeTimesMs.append(relativePts)
        let newFileBytes = muxer.bytesWritten
        if newFileBytes != fileBytes {
            // The previous fragment reached the file; this packet opened the next one.
            let fragmentStart = fileBytes
            fileBytes = newFileBytes
            pendingFragmentBytes = packetBytes
            pendingFragmentPackets = 1
            try muxer.syncToDisk(newestFragmentStart: fragmentStart)
        } else {
            pendingFragmentBytes += packetBytes
            pendingFragmentPackets += 1
        }
        return true
    }

    /// Finishes and publishes the chunk. Returns nil (and removes the file) when it holds no frame.
    func finish() throws -> ChunkRecord? {
        if let signer, let last = try signer.finishChunk() {
            // Packet durations are in the encoder's time base, milliseconds.
            last.pointee.duration = LastFrameDuration.milliseconds(atLeast: last.pointee.duration, frameRate: frameRate)
            try muxer.write(last)
        }
        guard !relativeTimesMs.isEmpty else {
            try? muxer.finish()
            unlink(partPath)
            store.releaseLiveChunk()
            return nil
        }
        try muxer.finish()
        relativeTimesMs.sort()
        let frameTimesMs = relativeTimesMs.map { plan.startMs + $0 }
        let finishingStarted = ContinuousClock.now
        try ChunkFinisher.finish(path: partPath, firstFrameEpochMs: frameTimesMs[0])
        finishingDuration = ContinuousClock.now - finishingStarted
        let record = try TimestampsFile.write(
            frameTimesMs: frameTimesMs, stamp: plan.stamp, format: plan.format,
            chunkTemporaryPath: partPath, in: store.directory)
        store.commit(record)
        return record
    }

    /// The store vanished or turned read-only: closes the file where it is, unfinished. If
    /// the same disk comes back, `ChunkStore.reconcileAfterOutage` finishes it then.
    func abandon() {
        signer?.abandonChunk()
        muxer.abandon()
        store.releaseLiveChunk()
    }

    /// After a failed write or finish: salvages what reached the file, as start-up would.
    func salvage(logger: Logger) -> ChunkRecord? {
        signer?.abandonChunk()
        muxer.abandon()
        let record = ChunkRecovery.recoverPart(stamp: plan.stamp, format: plan.format, in: store.directory, logger: logger)
        if let record { store.commit(record) } else { store.releaseLiveChunk() }
        return record
    }
}
