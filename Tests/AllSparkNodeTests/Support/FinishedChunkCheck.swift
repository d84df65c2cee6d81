import Foundation
import Testing
@testable import AllSparkNode

/// What a finished chunk must be for players that trust its `moov` (issue 31): an ordinary
/// MP4/MOV whose boxes, ffprobe and in-stream time stamps agree with its timestamps file.
enum FinishedChunkCheck {
    /// Top-level boxes and the boxes of the `moov` tree, read here with a walker of the
    /// test's own (the node's `ChunkFinisher` is what is under test).
    struct Boxes {
        var topLevel: [String] = []
        var movieTree: [String] = []
        var movieTimeScale: UInt32 = 0
        var movieDuration: UInt64 = 0
        var creationTime: UInt64 = 0
    }

    static func boxes(_ path: String) throws -> Boxes {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func number(_ at: Int, _ bytes: Int) -> UInt64 { data[at..<at + bytes].reduce(0) { $0 << 8 | UInt64($1) } }
        var result = Boxes()
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "mvex", "edts", "dinf"]
        func walk(_ range: Range<Int>, inMovie: Bool) {
            var offset = range.lowerBound
            while offset + 8 <= range.upperBound {
                var size = Int(number(offset, 4))
                let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
                var header = 8
                if size == 1 { size = Int(number(offset + 8, 8)); header = 16 }
                guard size >= header, offset + size <= range.upperBound else { return }
                if inMovie { result.movieTree.append(type) } else { result.topLevel.append(type) }
                if type == "mvhd" {
                    let wide = data[offset + header] == 1
                    let fields = offset + header + 4
                    result.creationTime = number(fields, wide ? 8 : 4)
                    result.movieTimeScale = UInt32(number(fields + (wide ? 16 : 8), 4))
                    result.movieDuration = number(fields + (wide ? 20 : 12), wide ? 8 : 4)
                }
                if containers.contains(type) { walk(offset + header..<offset + size, inMovie: true) }
                offset += size
            }
        }
        walk(0..<data.count, inMovie: false)
        return result
    }

    /// ffprobe's duration and packet count, counted from the file.
    static func ffprobe(_ path: String) throws -> (durationSeconds: Double, packets: Int) {
        let result = try TestFiles.run("/usr/bin/ffprobe", [
            "-v", "error", "-count_packets", "-select_streams", "v:0",
            "-show_entries", "format=duration:stream=nb_read_packets", "-of", "default=noprint_wrappers=1", path,
        ])
        guard result.status == 0 else { throw TestFailure("ffprobe \(path): \(result.output)") }
        var values: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let duration = values["duration"].flatMap(Double.init), let packets = values["nb_read_packets"].flatMap(Int.init) else {
            throw TestFailure("ffprobe \(path) gave no duration or packet count: \(result.output)")
        }
        return (duration, packets)
    }

    /// GStreamer's discoverer duration and h264parse's time stamps, through
    /// `Tests/protocol/gstreamer_reader.py` (GStreamer's C API from Python).
    static func gstreamer(_ path: String) throws -> (durationSeconds: Double, timeStampsUs: [Int64?]) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("protocol/gstreamer_reader.py")
        let result = try TestFiles.run("/usr/bin/env", ["python3", script.path, path])
        guard result.status == 0, let line = result.output.split(separator: "\n").last,
            let found = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let duration = found["durationSeconds"] as? Double, let stamps = found["timeStampsUs"] as? [Any]
        else { throw TestFailure("GStreamer could not read \(path): \(result.output)") }
        return (duration, stamps.map { ($0 as? NSNumber)?.int64Value })
    }

    /// mediainfo's duration.
    static func mediainfoSeconds(_ path: String) throws -> Double {
        let result = try TestFiles.run("/usr/bin/mediainfo", ["--Inform=General;%Duration%", path])
        guard result.status == 0, let ms = Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("mediainfo \(path): \(result.output)")
        }
        return ms / 1000
    }

    /// Expects `path` to be a finished chunk of `frameTimesMs` (its timestamps file) at `fps`;
    /// `stamped`: recorded by the node, so every frame carries its time stamp SEI.
    static func expectFinished(_ path: String, frameTimesMs: [Int64], fps: Double, stamped: Bool = true) throws {
        let frameSeconds = 1 / fps
        let expectedSeconds = Double(frameTimesMs.count) / fps
        let boxes = try boxes(path)
        #expect(boxes.topLevel == ["ftyp", "mdat", "moov"], "\(path): top-level boxes \(boxes.topLevel)")
        #expect(!boxes.movieTree.contains("mvex"), "\(path): a finished chunk has no mvex")
        #expect(boxes.movieTree.contains("stss") || boxes.movieTree.contains("stsz"), "\(path): full sample tables")
        let movieSeconds = Double(boxes.movieDuration) / Double(max(boxes.movieTimeScale, 1))
        #expect(abs(movieSeconds - expectedSeconds) <= frameSeconds + 0.002, "\(path): mvhd \(movieSeconds) s for \(frameTimesMs.count) frames")
        #expect(boxes.creationTime == UInt64(frameTimesMs[0] / 1000) + 2_082_844_800, "\(path): mvhd creation_time")
        let probe = try ffprobe(path)
        #expect(probe.packets == frameTimesMs.count, "\(path): ffprobe counts \(probe.packets) frames")
        let gstreamer = try gstreamer(path)
        let readings = [("ffprobe", probe.durationSeconds), ("GStreamer", gstreamer.durationSeconds), ("mediainfo", try mediainfoSeconds(path))]
        for (reader, seconds) in readings {
            #expect(abs(seconds - expectedSeconds) <= frameSeconds + 0.002, "\(path): \(reader) says \(seconds) s for \(frameTimesMs.count) frames")
        }
        guard stamped else { return }
        let inStream = try StreamTimeProbe.read(path: path)
        #expect(inStream.isFullyStamped && inStream.frameTimesMs == frameTimesMs, "\(path): time stamp SEI differ from the timestamps file")
        // GStreamer gives them in decode order; capture times rise in presentation order.
        #expect(!gstreamer.timeStampsUs.contains(nil), "\(path): GStreamer finds a frame without a time stamp")
        #expect(gstreamer.timeStampsUs.compactMap { $0 }.sorted() == frameTimesMs.map { $0 * 1000 }, "\(path): GStreamer reads other time stamps")
    }
}
