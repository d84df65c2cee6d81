import Foundation

/// The real `allspark-node` binary run as a child process, for signal and CLI tests.
final class NodeProcess {
    let process = Process()
    private let output = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = TestFiles.nodeExecutable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to exit; returns its status and everything it printed.
    func waitForExit() -> (status: Int32, output: String) {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
