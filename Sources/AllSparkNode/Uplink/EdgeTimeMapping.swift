import Synchronization

/// The node speaks to an edge server in the server's clock once it has measured it
/// (`uplink.timeReference: edge`): chunkSaved times go out as edge time, and an
/// uploadTimeRange comes in as edge time and is mapped to node time, widened by the
/// offset's uncertainty so no frame the asker meant is left out.
///
/// An autoUpload server echoes each chunkSaved's times back as a range; that range must be
/// exactly that chunk, not its neighbours (PROTOCOL.md), which widening could add. So the
/// times of recent chunkSaved messages are remembered, and an echo is answered with its chunk.
final class EdgeTimeMapping: Sendable {
    private struct Announced {
        let edgeStartMs: Int64
        let edgeEndMs: Int64
        let chunk: ChunkRecord
    }

    /// chunkSaved messages remembered for echoes (about half an hour of 30 s chunks).
    static let announcementsKept = 64

    private let live: LiveConfiguration
    private let estimate: @Sendable () -> EdgeClockEstimate?
    private let announced = Mutex<[Announced]>([])

    init(live: LiveConfiguration, estimate: @escaping @Sendable () -> EdgeClockEstimate?) {
        self.live = live
        self.estimate = estimate
    }

    /// The offset in use now, or nil when ranges are taken in node time.
    var activeEstimate: EdgeClockEstimate? {
        live.config.uplink.timeReference == "edge" ? estimate() : nil
    }

    /// The times a chunkSaved states for `chunk`, in the clock the edge server reads.
    func announcedTimes(of chunk: ChunkRecord) -> (startMs: Int64, endMs: Int64) {
        guard let estimate = activeEstimate else { return (chunk.startMs, chunk.endMs) }
        let offset = estimate.offsetMs(atNodeMs: Double(chunk.endMs))
        let times = (startMs: chunk.startMs + Int64(offset.rounded()), endMs: chunk.endMs + Int64(offset.rounded()))
        announced.withLock {
            $0.append(Announced(edgeStartMs: times.startMs, edgeEndMs: times.endMs, chunk: chunk))
            if $0.count > Self.announcementsKept { $0.removeFirst($0.count - Self.announcementsKept) }
        }
        return times
    }

    /// How an edge server's range reads in node time.
    struct Mapped {
        let range: UploadTimeRange
        /// The offset subtracted, when the range was mapped through one.
        let offsetAppliedMs: Double?
        let uncertaintyMs: Double?
    }

    func nodeRange(for range: UploadTimeRange) -> Mapped {
        if let echo = announced.withLock({ list in list.last { $0.edgeStartMs == range.startMs && $0.edgeEndMs == range.endMs } }) {
            return Mapped(
                range: UploadTimeRange(startMs: echo.chunk.startMs, endMs: echo.chunk.endMs),
                offsetAppliedMs: Double(echo.edgeStartMs - echo.chunk.startMs), uncertaintyMs: 0)
        }
        guard let estimate = activeEstimate else { return Mapped(range: range, offsetAppliedMs: nil, uncertaintyMs: nil) }
        let node = estimate.nodeRange(edgeStartMs: range.startMs, edgeEndMs: range.endMs)
        return Mapped(
            range: UploadTimeRange(startMs: node.startMs, endMs: node.endMs), offsetAppliedMs: node.offsetMs,
            uncertaintyMs: estimate.uncertaintyMs)
    }
}
