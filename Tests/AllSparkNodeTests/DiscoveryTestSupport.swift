import Foundation

/// The loopback-only avahi-daemon the discovery tests run against, managed by
/// `scripts/start-avahi.sh` so that `swift test` alone works on a bare machine.
enum AvahiTestDaemon {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/start-avahi.sh")

    /// Runs the script in `mode` (start, restart, stop, stop-all); throws if it fails.
    static func run(_ mode: String) throws {
        let result = try runBounded("/bin/bash", [script.path, mode], seconds: 30)
        guard result.status == 0 else {
            throw TestFailure("start-avahi.sh \(mode) exited \(result.status): \(result.output)")
        }
    }

    static func ensureRunning() throws { try run("start") }

    static func systemBusAnswers() throws -> Bool {
        let arguments = ["--system", "--print-reply", "--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.GetId"]
        return try runBounded("/usr/bin/dbus-send", arguments, seconds: 5).status == 0
    }
}

/// Runs a program to its end, killing it after `seconds`; returns its status and output.
func runBounded(_ executable: String, _ arguments: [String], seconds: Double) throws -> (status: Int32, output: String) {
    // Output goes to a file, not a pipe, so a chatty child can never block on a full pipe.
    let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("discovery-\(UUID().uuidString).out")
    guard FileManager.default.createFile(atPath: outputFile.path, contents: nil) else {
        throw TestFailure("cannot create \(outputFile.path)")
    }
    defer { try? FileManager.default.removeItem(at: outputFile) }
    let output = try FileHandle(forWritingTo: outputFile)
    defer { try? output.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = output
    process.standardError = output
    try runWithDefaultSignalMask(process)
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline {
        usleep(20_000)
    }
    if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    return (process.terminationStatus, try String(contentsOf: outputFile, encoding: .utf8))
}

/// Starts `process` with no signal blocked. A child inherits the spawning thread's mask, and
/// the test runner's threads block SIGTERM: without this, avahi-publish, dbus-daemon and
/// avahi-daemon started from a test could not be stopped with SIGTERM.
func runWithDefaultSignalMask(_ process: Process) throws {
    var unblocked = sigset_t()
    var previous = sigset_t()
    sigemptyset(&unblocked)
    pthread_sigmask(SIG_SETMASK, &unblocked, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try process.run()
}

/// One resolved line (`=;...`) of `avahi-browse -r -t -p`.
struct BrowsedService: Equatable {
    let interface: String
    let name: String
    let type: String
    let address: String
    let port: Int
    let txt: [String]

    /// Resolved services of `type` as avahi-browse sees them now.
    static func list(type: String) throws -> [BrowsedService] {
        let result = try runBounded("/usr/bin/avahi-browse", ["-r", "-t", "-p", type], seconds: 10)
        return result.output.split(separator: "\n").compactMap { BrowsedService(parsableLine: String($0)) }
    }

    /// `=;lo;IPv4;Name\032With\032Spaces;_type._tcp;local;host.local;127.0.0.1;18555;"a=b" "c=d"`
    init?(parsableLine line: String) {
        let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 10, fields[0] == "=", let port = Int(fields[8]) else { return nil }
        interface = fields[1]
        name = Self.unescapeLabel(fields[3])
        type = fields[4]
        address = fields[7]
        self.port = port
        txt = Self.quotedStrings(fields[9])
    }

    /// avahi escapes names as DNS labels: `\DDD` for a byte in decimal, `\c` for `c`.
    static func unescapeLabel(_ text: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = input.first else {
                bytes.append(byte)
                continue
            }
            let digits = input.prefix(3)
            if digits.count == 3, digits.allSatisfy({ (48...57).contains($0) }), let value = UInt8(String(decoding: digits, as: UTF8.self)) {
                bytes.append(value)
                input = input.dropFirst(3)
            } else {
                bytes.append(next)
                input = input.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The TXT field: `"a=b" "c=d"`, with `\"` and `\\` escaped inside the quotes.
    static func quotedStrings(_ text: String) -> [String] {
        var strings: [String] = []
        var current: String?
        var isEscaped = false
        for character in text {
            if var open = current {
                if isEscaped {
                    open.append(character)
                    isEscaped = false
                } else if character == "\\" {
                    isEscaped = true
                } else if character == "\"" {
                    strings.append(open)
                    current = nil
                    continue
                } else {
                    open.append(character)
                }
                current = open
            } else if character == "\"" {
                current = ""
            }
        }
        return strings
    }
}

/// `avahi-publish -s NAME TYPE PORT [TXT...]` running as a child, killed by `stop()`.
final class AvahiPublishProcess {
    private let process = Process()

    init(name: String, type: String, port: Int, txt: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/avahi-publish")
        process.arguments = ["-s", name, type, String(port)] + txt
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try runWithDefaultSignalMask(process)
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// Polls `condition` every 200 ms for up to `seconds`; true as soon as it holds.
func eventually(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(200_000)
    }
    return try condition()
}
