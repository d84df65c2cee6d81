import Foundation
import Logging
import Testing
@testable import AllSparkNode

/// The service's side of systemd: notifications over a real datagram socket (as systemd's
/// own NOTIFY_SOCKET), the watchdog rule, status lines, and journal log lines. A booted
/// systemd judges the whole in Tests/package.
@Suite(.serialized)
struct SupervisionTests {
    @Test("READY, STATUS and WATCHDOG reach the socket named by NOTIFY_SOCKET through libsystemd")
    func notificationsReachTheSocket() throws {
        let directory = try TestFiles.makeDirectory("notify")
        let path = directory.appendingPathComponent("notify.sock").path
        let socket = try DatagramSocket(boundTo: path)
        setenv("NOTIFY_SOCKET", path, 1)
        setenv("WATCHDOG_USEC", "4000000", 1)
        defer {
            unsetenv("NOTIFY_SOCKET")
            unsetenv("WATCHDOG_USEC")
        }
        let notifier = SystemdNotifier()
        #expect(notifier.isSupervised)
        #expect(notifier.watchdogTimeout == .seconds(4))

        let marker = "recording test \(UUID().uuidString)"
        notifier.ready(status: marker + "\nsecond line")
        #expect(try socket.receive(containing: marker) == "READY=1\nSTATUS=\(marker) second line")
        notifier.watchdog()
        #expect(try socket.receive(containing: "WATCHDOG") == "WATCHDOG=1")
    }

    @Test("without NOTIFY_SOCKET nothing is supervised and there is no watchdog")
    func unsupervised() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isSupervised)
    }

    @Test("the recorder is alive while it made progress within the window, and not after")
    func watchdogRule() {
        let window = SystemdSupervision.progressWindowMs
        #expect(SystemdSupervision.isRecorderAlive(lastProgressMonotonicMs: 10_000, nowMonotonicMs: 10_000 + window))
        #expect(!SystemdSupervision.isRecorderAlive(lastProgressMonotonicMs: 10_000, nowMonotonicMs: 10_001 + window))
    }

    @Test("started means a frame encoded or a failing source; the status line says which")
    func statusLines() {
        var status = RecorderStatus()
        status.source = "/dev/video0"
        #expect(!SystemdSupervision.hasStarted(status))
        #expect(SystemdSupervision.statusLine(status, port: 0) == "starting; API not serving yet")

        status.sourceError = "No such device"
        #expect(SystemdSupervision.hasStarted(status))
        #expect(SystemdSupervision.statusLine(status, port: 8090) == "source /dev/video0 failing, retrying: No such device; serving on port 8090")

        status.sourceError = nil
        status.recording = true
        status.framesEncoded = 31
        status.chunksWritten = 2
        status.frameWidth = 1280
        status.frameHeight = 720
        #expect(SystemdSupervision.hasStarted(status))
        #expect(SystemdSupervision.statusLine(status, port: 8090) == "recording 1280x720 from /dev/video0: 2 chunks, 31 frames this run; serving on port 8090")
    }

    @Test("stderr is the journal only when JOURNAL_STREAM names its device and inode")
    func journalStreamDetection() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        #expect(JournalLogHandler.isStandardErrorTheJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!JournalLogHandler.isStandardErrorTheJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!JournalLogHandler.isStandardErrorTheJournal(environment: [:]))
    }

    @Test("journal lines carry syslog priorities and stay one line")
    func journalPriorities() {
        #expect(JournalLogHandler.priority(.error) == 3)
        #expect(JournalLogHandler.priority(.warning) == 4)
        #expect(JournalLogHandler.priority(.notice) == 5)
        #expect(JournalLogHandler.priority(.info) == 6)
        #expect(JournalLogHandler.priority(.debug) == 7)
        #expect(JournalLogHandler.oneLine("libav said:\nbad frame\r\n") == "libav said: bad frame ")
    }
}

/// A bound AF_UNIX datagram socket, as systemd listens on for notifications.
private final class DatagramSocket {
    let descriptor: Int32

    init(boundTo path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            _ = path.utf8CString.withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// The next datagram containing `text` (other nodes in the same test process may notify too).
    func receive(containing text: String) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw POSIXError(.init(rawValue: errno) ?? .ETIMEDOUT) }
            let message = String(decoding: buffer[0..<count], as: UTF8.self)
            if message.contains(text) { return message }
        }
    }
}
