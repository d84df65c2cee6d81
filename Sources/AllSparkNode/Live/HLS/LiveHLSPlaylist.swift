import Foundation
import NIOCore
import Synchronization

/// The LL-HLS media playlist over the live fragments: segments start at keyframes (one GOP,
/// `encoder.keyframeIntervalMs`), split into parts of about `partTargetMs` that may end at
/// any frame; parts that start with a keyframe are INDEPENDENT. Parts are named by a running
/// number, not by segment: whether the next part opens a segment is known only when its
/// first frame comes, and the preload hint must name it before. Holds the last
/// `segmentWindow` segments; requests for a part or playlist not there yet wait for it.
final class LiveHLSPlaylist: Sendable {
    struct Part: Sendable {
        var id = 0
        var durationMs: Int64 = 0
        var independent = false
        /// Its frames' fragments, the feed's own buffers (shared, not copied): the window's
        /// memory is then what the longer of the two windows holds, not their sum.
        var fragments: [ByteBuffer] = []
    }

    struct Segment: Sendable {
        let sequence: Int
        /// Its `#EXT-X-PROGRAM-DATE-TIME` line, formatted once: every playlist request lists it.
        let programDateTime: String
        var parts: [Part] = []
        /// The part being filled; complete parts only are listed.
        var open = Part()
        var complete = false
        var durationMs: Int64 { parts.reduce(0) { $0 + $1.durationMs } }
    }

    private struct State {
        var session: LiveSessionStart?
        var segments: [Segment] = []
        var nextSequence = 0
        var discontinuitySequence = 0
        /// The number of the part being filled (the preload hint's).
        var nextPartId = 0
    }

    let partTargetMs: Int64
    /// Whole seconds; a segment reaching it ends even between keyframes.
    let targetDurationSeconds: Int
    let segmentWindow: Int
    private let state = Mutex(State())
    let updates = LiveUpdateSignal()

    init(keyframeIntervalMs: Int, partTargetMs: Int64 = 200, segmentWindow: Int = 6) {
        self.partTargetMs = partTargetMs
        targetDurationSeconds = max(1, Int((Double(keyframeIntervalMs) * 1.5 / 1000).rounded(.up)))
        self.segmentWindow = segmentWindow
    }

    var session: LiveSessionStart? { state.withLock { $0.session } }

    func begin(_ session: LiveSessionStart) {
        state.withLock { state in
            if !state.segments.isEmpty { state.discontinuitySequence += 1 }
            state.segments.removeAll()
            state.session = session
        }
        updates.bump()
    }

    func append(captureMs: Int64, durationMs: Int64, isKeyframe: Bool, mp4: ByteBuffer) {
        let partTargetMs = partTargetMs
        let targetMs = Int64(targetDurationSeconds) * 1000
        state.withLock { state in
            if state.segments.isEmpty || isKeyframe
                || state.segments[state.segments.count - 1].durationMs + durationMs > targetMs
            {
                if !state.segments.isEmpty { Self.close(&state.segments[state.segments.count - 1], nextPartId: &state.nextPartId) }
                state.segments.append(Segment(sequence: state.nextSequence, programDateTime: Self.programDateTime(captureMs)))
                state.nextSequence += 1
                if state.segments.count > segmentWindow + 1 { state.segments.removeFirst(state.segments.count - segmentWindow - 1) }
            }
            let last = state.segments.count - 1
            // In place: a copy of the open part would copy its fragment list at every frame.
            if state.segments[last].open.fragments.isEmpty { state.segments[last].open.independent = isKeyframe }
            state.segments[last].open.fragments.append(mp4)
            state.segments[last].open.durationMs += durationMs
            // A part ends once it reaches the target (within a millisecond of rounding).
            if state.segments[last].open.durationMs >= partTargetMs - 1 {
                Self.endOpenPart(of: &state.segments[last], nextPartId: &state.nextPartId)
            }
        }
        updates.bump()
    }

    private static func close(_ segment: inout Segment, nextPartId: inout Int) {
        if !segment.open.fragments.isEmpty { endOpenPart(of: &segment, nextPartId: &nextPartId) }
        segment.complete = true
    }

    private static func endOpenPart(of segment: inout Segment, nextPartId: inout Int) {
        segment.open.id = nextPartId
        nextPartId += 1
        segment.parts.append(segment.open)
        segment.open = Part()
    }

    /// What a playlist request is waiting for: a segment (and part) or later.
    struct Position: Equatable {
        let segment: Int
        let part: Int?
    }

    enum Availability { case ready, waiting, tooFarAhead }

    func availability(of position: Position) -> Availability {
        state.withLock { state in
            guard let last = state.segments.last else { return .waiting }
            if position.segment > last.sequence + 2 { return .tooFarAhead }
            let asked = Self.nextExisting(position, in: state.segments)
            if asked.segment < last.sequence { return .ready }
            if asked.segment > last.sequence { return .waiting }
            guard let part = asked.part else { return last.complete ? .ready : .waiting }
            return part < last.parts.count ? .ready : .waiting
        }
    }

    /// A part index past a finished segment's last part names the part after it, the next
    /// segment's first: a client asks so when it read the segment before it had ended.
    private static func nextExisting(_ position: Position, in segments: [Segment]) -> Position {
        guard let part = position.part, let segment = segments.first(where: { $0.sequence == position.segment }),
            segment.complete, part >= segment.parts.count
        else { return position }
        return Position(segment: position.segment + 1, part: 0)
    }

    enum PartLookup {
        /// The part's fragments, in order.
        case found([ByteBuffer])
        /// The next part to be made: worth waiting for (the preload hint names it).
        case upcoming
        case gone
    }

    func part(_ id: Int) -> PartLookup {
        state.withLock { state in
            if id == state.nextPartId { return .upcoming }
            for segment in state.segments.reversed() {
                if let part = segment.parts.first(where: { $0.id == id }) { return .found(part.fragments) }
            }
            return .gone
        }
    }

    /// A complete segment's fragments, in order.
    func segment(_ sequence: Int) -> [ByteBuffer]? {
        state.withLock { state in
            guard let segment = state.segments.first(where: { $0.sequence == sequence }), segment.complete else { return nil }
            return segment.parts.flatMap(\.fragments)
        }
    }

    /// The playlist text; every URI carries `query` (e.g. `?token=…`) when it is not empty.
    func render(query: String) -> String? {
        state.withLock { state -> String? in
            guard let session = state.session, let first = state.segments.first else { return nil }
            var text = """
                #EXTM3U
                #EXT-X-VERSION:9
                #EXT-X-TARGETDURATION:\(targetDurationSeconds)
                #EXT-X-PART-INF:PART-TARGET=\(Self.seconds(partTargetMs))
                #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=\(Self.seconds(partTargetMs * 3))
                #EXT-X-MEDIA-SEQUENCE:\(first.sequence)
                #EXT-X-DISCONTINUITY-SEQUENCE:\(state.discontinuitySequence)
                #EXT-X-MAP:URI="init-\(session.parameters.session).mp4\(query)"

                """
            // Parts are listed for the newest segments only, as the specification allows.
            let partsFrom = state.segments.count - 3
            for (position, segment) in state.segments.enumerated() {
                text += segment.programDateTime
                if position >= partsFrom {
                    for part in segment.parts {
                        text += "#EXT-X-PART:DURATION=\(Self.seconds(part.durationMs)),URI=\"part-\(part.id).mp4\(query)\""
                        text += part.independent ? ",INDEPENDENT=YES\n" : "\n"
                    }
                }
                if segment.complete {
                    text += "#EXTINF:\(Self.seconds(segment.durationMs)),\nseg-\(segment.sequence).mp4\(query)\n"
                }
            }
            text += "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part-\(state.nextPartId).mp4\(query)\"\n"
            return text
        }
    }

    /// Milliseconds as seconds with three decimals ("0.200"): a playlist lists a few dozen
    /// durations, and each blocking reload renders it anew.
    static func seconds(_ ms: Int64) -> String { max(0, ms).millisecondsAsDecimalSeconds }

    static func programDateTime(_ ms: Int64) -> String { "#EXT-X-PROGRAM-DATE-TIME:\(WallClock.iso8601(ms: ms))\n" }
}
