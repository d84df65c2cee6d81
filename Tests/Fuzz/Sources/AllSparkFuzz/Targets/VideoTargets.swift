import Foundation
@testable import AllSparkNode

/// Footage from outside (`verify`, `probe`, fleet fetches) and the node's own part files
/// as a power cut leaves them.
enum VideoTargets {
    /// The box walker the finisher is built on, over every container box it may meet.
    static let mp4Boxes = FuzzTarget(name: "mp4-boxes", parses: "MP4/MOV box trees (moov, moof and their children)") { bytes in
        walk(bytes, in: 0..<bytes.count, parent: "file", depth: 0)
        guard let defaults = try? FragmentSamples.Defaults(movie: bytes),
            let boxes = try? ChildBox.children(of: bytes, in: 0..<bytes.count, parent: "file")
        else { return }
        var samples = FragmentSamples(sampleLimit: bytes.count)
        for box in boxes where box.type == "moof" {
            try? samples.add(moof: Array(bytes[box.range]), at: UInt64(box.range.lowerBound), defaults: defaults)
        }
    }

    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "moof", "traf", "mvex", "edts", "dinf", "udta"]

    private static func walk(_ bytes: [UInt8], in range: Range<Int>, parent: String, depth: Int) {
        guard depth < 16, let children = try? ChildBox.children(of: bytes, in: range, parent: parent) else { return }
        for child in children {
            precondition(range.contains(child.range.lowerBound) && child.range.upperBound <= range.upperBound, "a box outside its parent")
            if containers.contains(child.type) { walk(bytes, in: child.payload, parent: child.type, depth: depth + 1) }
        }
    }

    /// A part file as a crash left it, finished in place as start-up recovery does (the
    /// first byte picks whether the torn tail is cut off, as after a power cut).
    static let partFile = FuzzTarget(name: "part-file", parses: "fragmented part files left by a crash, finished in place") { bytes in
        guard let mode = bytes.first else { return }
        let path = FuzzScratch.file("chunk.mp4.part", Array(bytes.dropFirst()))
        do {
            try ChunkFinisher.finish(path: path, firstFrameEpochMs: 1_700_000_000_000, keepingIntactPrefix: mode & 1 == 1)
            let finished = try ChunkFinisher.isFinished(path: path)
            precondition(finished, "a finished file that does not read as finished")
        } catch {}
    }

    /// Start-up recovery of a part file in a store directory: finished in place, or its
    /// intact packets copied out through libav, then its sidecar written.
    static let partRecovery = FuzzTarget(name: "part-recovery", parses: "part files recovered at start (in place or remuxed)") { bytes in
        let directory = URL(fileURLWithPath: FuzzScratch.directory + "/recovery", isDirectory: true)
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let format: VideoFormat = bytes.first.map { $0 & 1 == 0 ? .mp4 : .mov } ?? .mp4
        let stamp = "1795883878.653"
        FileManager.default.createFile(
            atPath: directory.appendingPathComponent(ChunkNaming.partFileName(stamp: stamp, format: format)).path, contents: Data(bytes.dropFirst()))
        guard let record = ChunkRecovery.recoverPart(stamp: stamp, format: format, in: directory, logger: FuzzLogging.silent) else { return }
        precondition(record.frameCount > 0 && record.startMs <= record.endMs, "a recovered chunk without frames or with its times reversed")
    }

    /// A media file handed to `probe` and `verify`, read through libav as they read it.
    static let mediaFile = FuzzTarget(name: "media-file", parses: "files handed to `probe` and `verify`") { bytes in
        let path = FuzzScratch.file("footage.mp4", bytes)
        if let probe = try? StreamTimeProbe.read(path: path) {
            precondition(probe.frameTimesMs.count <= probe.frameCount, "more frame times than frames")
        }
        _ = try? MediaSigningVerifier.verify(path: path)
    }

    /// The time stamp SEI a chunk carries on its frames, read as `probe` and the readers do.
    static let timeStampSEI = FuzzTarget(name: "time-stamp-sei", parses: "H.264 access units with time stamp SEIs") { bytes in
        bytes.withUnsafeBytes { buffer in
            _ = StreamTimeProbe.epochMicroseconds(in: buffer)
            MediaSigningSEI.forEachOtherSEIAheadOfPicture(in: buffer) { nal in _ = PrecisionTimeStampSEI.read(nal: nal) }
        }
    }

    /// One signing SEI (ONVIF Media Signing): its TLVs, GOP info, hash list, certificates.
    static let signingSEI = FuzzTarget(name: "signing-sei", parses: "ONVIF Media Signing SEIs") { bytes in
        bytes.withUnsafeBytes { nal in
            _ = MediaSigningSEI.isSigningSEI(nal)
            guard let parsed = MediaSigningSEI.parse(nal: nal) else { return }
            _ = parsed.gopInfo
            _ = parsed.hashList
            if let pem = parsed.certificatePEM { _ = try? SigningChain.certificates(inPEM: pem) }
        }
    }

    /// A whole H.264 stream (Annex B or length-prefixed) through `verify`'s check, cut into
    /// access units where a picture's first slice or the NAL units ahead of it begin.
    static let signedStream = FuzzTarget(name: "signed-stream", parses: "H.264 streams checked by `verify`") { bytes in
        let units = accessUnits(bytes)
        guard !units.isEmpty else { return }
        _ = try? MediaSigningVerifier.verify(accessUnits: units, file: "fuzz", trustedPEM: nil)
    }

    private static func accessUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var current: [UInt8] = []
        var sawPicture = false
        bytes.withUnsafeBytes { buffer in
            _ = H264Framing.of(buffer).forEachNAL(in: buffer) { _, nal in
                guard let header = nal.first else { return true }
                let isSlice = H264Framing.isSlice(header)
                let startsPicture = isSlice && nal.count > 1 && nal[1] & 0x80 != 0
                if sawPicture && (!isSlice || startsPicture) {
                    units.append(current)
                    current = []
                    sawPicture = false
                }
                current += [0, 0, 0, 1]
                current += nal
                sawPicture = sawPicture || isSlice
                return true
            }
        }
        if !current.isEmpty { units.append(current) }
        return units
    }
}
