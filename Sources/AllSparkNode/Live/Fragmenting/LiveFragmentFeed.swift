import NIOCore
import Synchronization

/// The recent fMP4 fragments of the live stream, shared by every fMP4 viewer: a bounded
/// window (by age, count and bytes) the fragmenter appends to and viewers read by sequence.
/// Nothing here waits for a viewer; a viewer that falls out of the window is told so.
final class LiveFragmentFeed: Sendable {
    enum ReadResult {
        case fragment(LiveFragment)
        case pending
        /// Dropped from the window before this viewer read it.
        case lapped
    }

    private struct State {
        var session: LiveSessionStart?
        var fragments: [LiveFragment] = []
        var firstIndex = 0
        var bytes = 0
        /// Fragments are numbered without gaps across sessions, so a sequence finds its index.
        var nextSequence: UInt64 = 1
    }

    /// A fragment this much older than the newest leaves: a viewer that far behind skips
    /// to the next keyframe anyway (`LiveVideo.maximumLagMs`).
    let maximumAgeMs: Int64
    let maximumFragments: Int
    let maximumBytes: Int
    private let state = Mutex(State())
    let updates = LiveUpdateSignal()

    init(maximumAgeMs: Int64, maximumFragments: Int = 300, maximumBytes: Int = 16 << 20) {
        self.maximumAgeMs = maximumAgeMs
        self.maximumFragments = maximumFragments
        self.maximumBytes = maximumBytes
    }

    var session: LiveSessionStart? { state.withLock { $0.session } }

    func begin(_ session: LiveSessionStart) {
        state.withLock { state in
            state.session = session
            state.fragments.removeAll(keepingCapacity: true)
            state.firstIndex = 0
            state.bytes = 0
        }
        updates.bump()
    }

    func append(session: Int, captureMs: Int64, durationMs: Int64, isKeyframe: Bool, mp4: ByteBuffer) {
        state.withLock { state in
            let fragment = LiveFragment(
                sequence: state.nextSequence, session: session, captureMs: captureMs, durationMs: durationMs,
                isKeyframe: isKeyframe, mp4: mp4)
            state.nextSequence += 1
            state.fragments.append(fragment)
            state.bytes += fragment.mp4.readableBytes
            while state.fragments.count - state.firstIndex > maximumFragments || state.bytes > maximumBytes
                || captureMs - state.fragments[state.firstIndex].captureMs > maximumAgeMs,
                state.firstIndex < state.fragments.count - 1
            {
                state.bytes -= state.fragments[state.firstIndex].mp4.readableBytes
                state.firstIndex += 1
            }
            // Compact now and then rather than shifting the array at every frame.
            if state.firstIndex > maximumFragments {
                state.fragments.removeFirst(state.firstIndex)
                state.firstIndex = 0
            }
        }
        updates.bump()
    }

    /// The fragment with `sequence` in the current session.
    func read(_ sequence: UInt64) -> ReadResult {
        state.withLock { state in
            if sequence >= state.nextSequence { return .pending }
            guard state.firstIndex < state.fragments.count else { return .lapped }
            let first = state.fragments[state.firstIndex].sequence
            if sequence < first { return .lapped }
            return .fragment(state.fragments[state.firstIndex + Int(sequence - first)])
        }
    }

    /// The sequence the next fragment will have (what a new viewer waits for), and the capture
    /// time of the newest frame.
    var head: (next: UInt64, newestCaptureMs: Int64?) {
        state.withLock { state in
            (state.nextSequence, state.firstIndex < state.fragments.count ? state.fragments.last?.captureMs : nil)
        }
    }
}
