import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Tells systemd when the node is up (`READY=1` once it records and serves), what it is
/// doing (a one-line `STATUS=`), and that the recording loop is alive: `WATCHDOG=1` goes
/// out only while the loop made progress within `progressWindowMs`, so a hung recorder
/// stops the pings and systemd restarts the node (`WatchdogSec=` in the unit).
public final class SystemdSupervision: Service, Sendable {
    /// The loop counts as alive while it encoded a frame or ticked in its retry backoff this
    /// recently. Long enough for a slow camera open or model load, short enough that with
    /// the unit's WatchdogSec=15 a hang is ended within about 25 s.
    static let progressWindowMs: Int64 = 8_000
    /// How often STATUS= is refreshed when the watchdog does not ask for more.
    static let statusInterval: Duration = .seconds(5)

    private let notifier: SystemdNotifier
    private let recorder: Recorder
    private let logger: Logger
    /// The API's bound port once it serves; 0 before.
    private let servingPort = Atomic<Int>(0)

    public init(notifier: SystemdNotifier, recorder: Recorder, logger: Logger) {
        self.notifier = notifier
        self.recorder = recorder
        self.logger = logger
    }

    public func serverStarted(port: Int) { servingPort.store(port, ordering: .releasing) }

    public func run() async throws {
        let tick = notifier.watchdogTimeout.map { min($0 / 4, Self.statusInterval) } ?? Self.statusInterval
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown {
                await self.supervise(tick: tick)
            }
        } onGracefulShutdown: {
            self.notifier.stopping()
        }
    }

    private func supervise(tick: Duration) async {
        var lastPing = ContinuousClock.now - tick
        var lastStatus = ContinuousClock.now
        var isReady = false
        while !Task.isCancelled {
            let now = ContinuousClock.now
            if !isReady {
                let port = servingPort.load(ordering: .acquiring)
                let status = recorder.status
                if port > 0, Self.hasStarted(status) {
                    notifier.ready(status: Self.statusLine(status, port: port))
                    logger.info("told systemd the node is ready")
                    isReady = true
                    lastStatus = now
                }
            } else if now - lastStatus >= Self.statusInterval {
                notifier.status(Self.statusLine(recorder.status, port: servingPort.load(ordering: .acquiring)))
                lastStatus = now
            }
            if now - lastPing >= tick, feedWatchdog() { lastPing = now }
            // Short sleeps until READY, so it follows the first frame closely.
            try? await Task.sleep(for: isReady ? tick : .milliseconds(100))
        }
    }

    /// Pings when the recording loop is alive; returns whether it did.
    private func feedWatchdog() -> Bool {
        guard notifier.watchdogTimeout != nil,
            Self.isRecorderAlive(lastProgressMonotonicMs: recorder.lastProgressMonotonicMs, nowMonotonicMs: WallClock.monotonicMs())
        else { return false }
        notifier.watchdog()
        return true
    }

    /// Recording has begun: a frame encoded, or the source failed and is being retried (a
    /// node waiting for its camera is up; its status says what it waits for).
    static func hasStarted(_ status: RecorderStatus) -> Bool {
        status.framesEncoded > 0 || status.sourceError != nil || status.finished
    }

    static func isRecorderAlive(lastProgressMonotonicMs: Int64, nowMonotonicMs: Int64) -> Bool {
        nowMonotonicMs - lastProgressMonotonicMs <= progressWindowMs
    }

    /// What `systemctl status` shows beside the unit.
    static func statusLine(_ status: RecorderStatus, port: Int) -> String {
        let serving = port > 0 ? "serving on port \(port)" : "API not serving yet"
        if let error = status.sourceError { return "source \(status.source) failing, retrying: \(error); \(serving)" }
        if status.finished { return "recording ended; \(serving)" }
        if let error = status.storeError { return "store problem: \(error); \(serving)" }
        guard status.recording else { return "starting; \(serving)" }
        return "recording \(status.frameWidth)x\(status.frameHeight) from \(status.source): \(status.chunksWritten) chunks, "
            + "\(status.framesEncoded) frames this run; \(serving)"
    }
}
