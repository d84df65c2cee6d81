import CFFmpeg
import Foundation
import Logging

/// Turns what a killed writer left behind into normal chunks at start-up.
enum ChunkRecovery {
    /// Turns `.chunk_<stamp>.<ext>.part` into a finished chunk (an ordinary MP4/MOV, as
    /// `ChunkWriter` makes) with its timestamps file, and removes the part file. The part
    /// may be torn (a crash while writing) or mid-finish (a crash in `ChunkFinisher`). It is
    /// finished where it lies when its boxes allow (no media copied: chunks live on SD
    /// cards); otherwise its intact packets are copied into a new file. A part file with no
    /// intact frame is removed. Returns the recovered chunk, if any.
    static func recoverPart(stamp: String, format: VideoFormat, in directory: URL, logger: Logger) -> ChunkRecord? {
        let partPath = directory.appendingPathComponent(ChunkNaming.partFileName(stamp: stamp, format: format)).path
        defer { unlink(partPath) }
        guard let startMs = ChunkNaming.startMs(ofStamp: stamp) else { return nil }
        switch recoverInPlace(partPath: partPath, stamp: stamp, format: format, startMs: startMs, in: directory, logger: logger) {
        case .recovered(let record):
            return record
        case .impossible(let reason):
            logger.error("removed \(partPath): \(reason); nothing in it can be trusted")
            return nil
        case .copyPackets:
            break
        }
        let chunkName = ChunkNaming.chunkFileName(stamp: stamp, format: format)
        let temporaryPath = directory.appendingPathComponent(".\(chunkName).tmp").path
        do {
            let relativeTimes = try remux(from: partPath, to: temporaryPath, format: format)
            guard let frameTimes = ChunkFrameTimes.offset(relativeTimes, by: startMs) else {
                unlink(temporaryPath)
                logger.warning("removed \(partPath): no intact frame in it")
                return nil
            }
            try ChunkFinisher.finish(path: temporaryPath, firstFrameEpochMs: startMs)
            let record = try TimestampsFile.write(
                frameTimesMs: frameTimes, stamp: stamp, format: format,
                chunkTemporaryPath: temporaryPath, in: directory)
            logger.notice("recovered \(record.fileName) from an unfinished chunk: \(record.frameCount) frames")
            return record
        } catch {
            unlink(temporaryPath)
            logger.error("could not recover \(partPath): \(error); removed it")
            return nil
        }
    }

    private enum InPlaceOutcome {
        case recovered(ChunkRecord)
        /// Not finished where it lies: its intact packets are copied out instead.
        case copyPackets
        /// Its fragments cannot be true; no reader is given it.
        case impossible(String)
    }

    /// Finishes the part file where it lies: what a finish interrupted, or the intact
    /// fragments of a torn part.
    private static func recoverInPlace(
        partPath: String, stamp: String, format: VideoFormat, startMs: Int64, in directory: URL, logger: Logger
    ) -> InPlaceOutcome {
        do {
            if try !ChunkFinisher.isFinished(path: partPath) {
                try ChunkFinisher.finish(path: partPath, firstFrameEpochMs: startMs, keepingIntactPrefix: true)
            }
            guard let times = ChunkFrameTimes.read(path: partPath, nameStartMs: startMs) else {
                logger.warning("\(partPath) was finished in place but holds no readable frame; copying what is intact instead")
                return .copyPackets
            }
            let record = try TimestampsFile.write(
                frameTimesMs: times, stamp: stamp, format: format, chunkTemporaryPath: partPath, in: directory)
            logger.notice("recovered \(record.fileName) in place from an unfinished chunk: \(record.frameCount) frames")
            return .recovered(record)
        } catch let error as FinishingError where error.fragmentsAreImpossible {
            return .impossible(error.reason)
        } catch {
            logger.warning("could not finish \(partPath) in place (\(error)); copying its intact packets instead")
            return .copyPackets
        }
    }

    /// Copies every intact packet of `input` into a new fragmented file; returns their
    /// presentation times in ms relative to the first frame.
    static func remux(from input: String, to output: String, format: VideoFormat) throws -> [Int64] {
        let reader = try ChunkReader(path: input)
        var times: [Int64] = []
        var muxer: FragmentedMuxer?
        let decoderParameters = reader.codecParameters
        var firstPts: Int64?
        let millisecond = AVRational(num: 1, den: 1000)
        try reader.forEachPacket { packet in
            if muxer == nil {
                muxer = try FragmentedMuxer(path: output, format: format, codecParameters: decoderParameters)
            }
            let pts = packet.pointee.pts != allspark_nopts_value() ? packet.pointee.pts : packet.pointee.dts
            let first = firstPts ?? pts
            firstPts = first
            let (ptsOffset, ptsOverflow) = pts.subtractingReportingOverflow(first)
            let dts = packet.pointee.dts != allspark_nopts_value() ? packet.pointee.dts : pts
            let (dtsOffset, dtsOverflow) = dts.subtractingReportingOverflow(first)
            guard !ptsOverflow, !dtsOverflow else { throw RemuxError.timesOverflow }
            packet.pointee.pts = av_rescale_q(ptsOffset, reader.timeBase, millisecond)
            packet.pointee.dts = av_rescale_q(dtsOffset, reader.timeBase, millisecond)
            packet.pointee.duration = av_rescale_q(packet.pointee.duration, reader.timeBase, millisecond)
            times.append(packet.pointee.pts)
            try muxer!.write(packet)
        }
        try muxer?.finish()
        times.sort()
        guard let earliest = times.first, let latest = times.last, !latest.subtractingReportingOverflow(earliest).overflow else {
            return []
        }
        return times.map { $0 - earliest }
    }

    enum RemuxError: Error, CustomStringConvertible {
        case timesOverflow
        var description: String { "its packets' times lie further apart than 64 bits count" }
    }
}
