/// The one recording's footage as ONVIF's search sees it: the ring store's chunks joined
/// into spans of continuous footage. A hole between one chunk's last frame and the next
/// one's first longer than `toleranceMs` is a gap: the node was down, the camera was lost,
/// or the ring evicted footage between two held chunks. What the ring evicted from the
/// front is simply no longer in the recording (its DataFrom moves on).
struct RecordingTimeline: Sendable, Equatable {
    struct Span: Sendable, Equatable {
        var startMs: Int64
        var endMs: Int64

        func contains(_ ms: Int64) -> Bool { startMs <= ms && ms <= endMs }
    }

    /// A change of `tns1:RecordingHistory/Track/State`: footage begins or ends at `utcMs`.
    struct Change: Sendable, Equatable {
        var utcMs: Int64
        var dataPresent: Bool
    }

    /// Consecutive chunks are a frame interval apart (at most a second at 1 fps, the
    /// slowest rate the node takes): shorter holes are not gaps. The fleet's gap finder
    /// uses the same bound.
    static let toleranceMs: Int64 = GapFinder.toleranceMs

    let spans: [Span]
    /// The recorder is writing: the last span runs on, so its end is no change yet.
    let recording: Bool

    init(chunks: [ChunkRecord], recording: Bool) {
        var spans: [Span] = []
        for chunk in chunks.sorted(by: { $0.startMs < $1.startMs }) {
            if let last = spans.last, chunk.startMs - last.endMs <= Self.toleranceMs {
                spans[spans.count - 1].endMs = max(last.endMs, chunk.endMs)
            } else {
                spans.append(Span(startMs: chunk.startMs, endMs: chunk.endMs))
            }
        }
        self.spans = spans
        self.recording = recording
    }

    var dataFromMs: Int64? { spans.first?.startMs }
    var dataUntilMs: Int64? { spans.last?.endMs }

    func span(containing ms: Int64) -> Span? {
        spans.first { $0.contains(ms) }
    }

    /// Whether footage exists at `ms`.
    func dataPresent(at ms: Int64) -> Bool { span(containing: ms) != nil }

    /// Every change in [fromMs, toMs], oldest first: footage begins at each span's start and
    /// ends at its end, but the running span's.
    func changes(fromMs: Int64, toMs: Int64) -> [Change] {
        var changes: [Change] = []
        for (index, span) in spans.enumerated() {
            if fromMs <= span.startMs, span.startMs <= toMs { changes.append(Change(utcMs: span.startMs, dataPresent: true)) }
            let running = recording && index == spans.count - 1
            if !running, fromMs <= span.endMs, span.endMs <= toMs { changes.append(Change(utcMs: span.endMs, dataPresent: false)) }
        }
        return changes
    }
}
