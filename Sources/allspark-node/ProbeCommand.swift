import AllSparkNode
import ArgumentParser
import Foundation

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "A chunk's or clip's first and last frame times, frame count and duration, from the file alone (its time stamp SEI).",
        discussion: "Exits 2 when some frame carries no time stamp (footage not recorded by this node version), 1 when the file cannot be read.")

    @Argument(help: "A chunk, a clip, or any H.264 MP4/MOV.")
    var file: String
    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let probe = try StreamTimeProbe.read(path: file)
        let report = ProbeReport(probe, file: file)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("file: \(report.file)")
            print("frames: \(report.frames) (\(report.framesWithTime) with a time stamp)")
            print("duration: \(report.durationMs.map { String(format: "%.3f s", Double($0) / 1000) } ?? "not stated")")
            if let first = report.firstFrameMs, let last = report.lastFrameMs {
                print("first frame: \(first) ms, \(WallClock.iso8601(ms: first))")
                print("last frame: \(last) ms, \(WallClock.iso8601(ms: last))")
            } else {
                print("no frame carries a time stamp")
            }
        }
        if !probe.isFullyStamped { throw ExitCode(2) }
    }
}

/// `probe --json`.
struct ProbeReport: Encodable {
    let file: String
    let frames: Int
    let framesWithTime: Int
    let durationMs: Int64?
    let firstFrameMs: Int64?
    let firstFrameISO: String?
    let lastFrameMs: Int64?
    let lastFrameISO: String?

    init(_ probe: StreamTimeProbe, file: String) {
        self.file = file
        frames = probe.frameCount
        framesWithTime = probe.frameTimesMs.count
        durationMs = probe.durationMs
        firstFrameMs = probe.firstFrameMs
        firstFrameISO = probe.firstFrameMs.map(WallClock.iso8601(ms:))
        lastFrameMs = probe.lastFrameMs
        lastFrameISO = probe.lastFrameMs.map(WallClock.iso8601(ms:))
    }
}
