import Foundation

/// Temporary directories and command-line tools for tests.
enum TestFiles {
    static func makeDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("allspark-tests-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a program to completion; returns its exit status and combined output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A test video made by the ffmpeg CLI: `seconds` of testsrc2 at `fps`, H.264.
    static func makeTestVideo(seconds: Int, fps: Int = 30, size: String = "320x240") throws -> URL {
        let directory = try makeDirectory("media")
        let url = directory.appendingPathComponent("testsrc-\(seconds)s.mp4")
        let result = try run("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(fps)", "-t", String(seconds),
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", url.path,
        ])
        guard result.status == 0 else { throw TestFailure("ffmpeg failed: \(result.output)") }
        return url
    }

    static func fileNames(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// Bytes of the files the store's cap covers (chunks, timestamps files, part files).
    static func storeBytes(in directory: URL) -> Int64 {
        fileNames(in: directory).filter { $0.contains("chunk_") || $0.contains("timestamps_") }.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// The built `allspark-node` binary beside the test bundle.
    static var nodeExecutable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("allspark-node")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/allspark-node")
    }

    /// The checkout this test file belongs to.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared` beside the checkout (faces, clips, models), wherever the checkout lies:
    /// CI clones it elsewhere, and a build root sees only the checkout and this folder.
    static let shared = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
