/// Gives each frame its wall-clock capture time in epoch ms.
///
/// - Camera: the driver's timestamp, mapped to wall clock by `DriverTimestampMapping`.
/// - Paced file or test pattern: start time plus the frame's media time; the capture thread
///   sleeps until then, so frames arrive at real time as from a camera.
/// - Unpaced file: start time plus the media time, with no waiting.
struct FrameClock {
    enum Decision: Equatable {
        /// Deliver the frame with this capture time, after sleeping `waitMs`.
        case deliver(captureTimeMs: Int64, waitMs: Int64)
        /// The pipeline is too far behind real time; a camera would have dropped this frame.
        case drop
    }

    /// How far a paced source may fall behind before frames are dropped, as a camera's
    /// driver queue would. It also absorbs the encoder's short stall at a settings change.
    static let maximumLagMs: Int64 = 1000

    private let live: Bool
    private let paced: Bool
    private var startWallMs: Int64?
    private var startMonotonicMs: Int64 = 0
    private var lastCaptureTimeMs: Int64 = .min

    init(live: Bool, paced: Bool) {
        self.live = live
        self.paced = paced
    }

    /// - Parameters:
    ///   - mediaMs: the frame's time within the source (from its first frame, loops included).
    ///   - deviceWallMs: the driver's wall-clock time, for cameras.
    mutating func place(mediaMs: Int64, deviceWallMs: Int64?, nowWallMs: Int64, nowMonotonicMs: Int64) -> Decision {
        if startWallMs == nil {
            startWallMs = nowWallMs - mediaMs
            startMonotonicMs = nowMonotonicMs - mediaMs
        }
        var captureTimeMs: Int64
        var waitMs: Int64 = 0
        if live {
            // A timestamp more than a day from now is not wall clock (a driver that ignored the mapping).
            if let deviceWallMs, abs(deviceWallMs - nowWallMs) < 86_400_000 {
                captureTimeMs = deviceWallMs
            } else {
                captureTimeMs = nowWallMs
            }
        } else {
            captureTimeMs = startWallMs! + mediaMs
            if paced {
                let dueMonotonicMs = startMonotonicMs + mediaMs
                let lateMs = nowMonotonicMs - dueMonotonicMs
                if lateMs > Self.maximumLagMs { return .drop }
                waitMs = max(0, -lateMs)
            }
        }
        // Timestamps are stored in ms and must be strictly increasing within the stream.
        if captureTimeMs <= lastCaptureTimeMs { captureTimeMs = lastCaptureTimeMs + 1 }
        lastCaptureTimeMs = captureTimeMs
        return .deliver(captureTimeMs: captureTimeMs, waitMs: waitMs)
    }
}
