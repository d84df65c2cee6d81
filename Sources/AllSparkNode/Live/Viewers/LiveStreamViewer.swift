import Hummingbird
import NIOCore
import Synchronization

/// One dashboard viewer of the fMP4 stream: from the keyframe it joined at, every fragment
/// of the feed in order. It reads the shared feed with a cursor of its own, so what it may
/// hold back is the feed's window, never the recorder: when it falls `maximumLagMs` behind
/// the newest frame, or out of the window, it skips to the next keyframe. One whose
/// connection takes nothing for `stallLimit` is disconnected.
struct LiveStreamViewer {
    let feed: LiveFragmentFeed
    let counters: LiveCounters.PerKind
    let maximumLagMs: Int64
    let channel: any Channel
    /// A viewer that got nothing new for this long (the recorder stopped) ends its stream.
    static let idleLimit = Duration.seconds(10)
    /// The kernel's send buffer for a viewer's socket (Linux doubles it), beside NIO's own
    /// 64 KiB high-water mark: what a stalled viewer can hold, at most.
    static let socketBufferBytes = 32 << 10
    static let stallLimitMs: Int64 = 20_000

    /// Waits for the next keyframe (at most `timeout`); nil when none came.
    func join(timeout: Duration) async -> LiveFragment? {
        var sequence = feed.head.next
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !Task.isCancelled {
            let seen = feed.updates.version
            switch feed.read(sequence) {
            case .fragment(let fragment):
                if fragment.isKeyframe { return fragment }
                sequence += 1
            case .lapped:
                sequence = feed.head.next
            case .pending:
                _ = await feed.updates.wait(after: seen, timeout: deadline - ContinuousClock.now)
            }
        }
        return nil
    }

    /// Streams from `first` until the client goes, the session ends (new init segment: the
    /// client reconnects), or the feed goes idle.
    func stream(from first: LiveFragment, initializationSegment: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        counters.viewers.add(1, ordering: .relaxed)
        defer { counters.viewers.subtract(1, ordering: .relaxed) }
        let pendingWrite = PendingWrite()
        let watchdog = Task { [channel, counters] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                let since = pendingWrite.sinceMs.load(ordering: .relaxed)
                if since > 0, WallClock.monotonicMs() - since > Self.stallLimitMs {
                    counters.dropped.add(1, ordering: .relaxed)
                    channel.close(promise: nil)
                    return
                }
            }
        }
        defer { watchdog.cancel() }
        func send(_ bytes: ByteBuffer) async throws {
            pendingWrite.sinceMs.store(WallClock.monotonicMs(), ordering: .relaxed)
            try await writer.write(bytes)
            pendingWrite.sinceMs.store(0, ordering: .relaxed)
            counters.bytesSent.add(bytes.readableBytes, ordering: .relaxed)
        }
        try await send(initializationSegment)
        var sequence = first.sequence
        var awaitingKeyframe = false
        while !Task.isCancelled {
            let seen = feed.updates.version
            switch feed.read(sequence) {
            case .pending:
                guard await feed.updates.wait(after: seen, timeout: Self.idleLimit) else { return }
            case .lapped:
                skip(to: &sequence, awaitingKeyframe: &awaitingKeyframe)
            case .fragment(let fragment):
                guard fragment.session == first.session else { return }
                if let newest = feed.head.newestCaptureMs, newest - fragment.captureMs > maximumLagMs, !awaitingKeyframe {
                    skip(to: &sequence, awaitingKeyframe: &awaitingKeyframe)
                    continue
                }
                sequence += 1
                if awaitingKeyframe && !fragment.isKeyframe { continue }
                awaitingKeyframe = false
                try await send(fragment.mp4)
            }
        }
    }

    private func skip(to sequence: inout UInt64, awaitingKeyframe: inout Bool) {
        counters.skips.add(1, ordering: .relaxed)
        sequence = feed.head.next
        awaitingKeyframe = true
    }
}

/// Monotonic ms since which a viewer's write has waited for its connection; 0 while none waits.
private final class PendingWrite: Sendable {
    let sinceMs = Atomic<Int64>(0)
}
