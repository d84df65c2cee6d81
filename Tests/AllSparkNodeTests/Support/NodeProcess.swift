import Foundation

/// The real `allspark-node` binary run as a child process, for signal and CLI tests.
final class NodeProcess {
    let process = Process()
    /// A file rather than a pipe, so a test can read what the node printed while it runs.
    private let outputFile: URL

    init(_ arguments: [String]) throws {
        outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("allspark-node-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        process.executableURL = TestFiles.nodeExecutable
        process.arguments = arguments
        // Nodes of tests that run side by side must not meet on the default ports, nor on mDNS.
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["ALLSPARK_SERVER_PORT": "0", "ALLSPARK_SERVER_RTSP_PORT": "0", "ALLSPARK_SERVER_ANNOUNCE": "false"]) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(at: outputFile) }

    /// Everything the node printed so far.
    var outputSoFar: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to exit; returns its status and everything it printed.
    func waitForExit() -> (status: Int32, output: String) {
        process.waitUntilExit()
        return (process.terminationStatus, outputSoFar)
    }

    /// Polls `condition` every 50 ms for up to `seconds`.
    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}
