import Foundation
import Synchronization

/// A masker's running totals, updated by the recording thread and readable from any
/// thread (status page, logs), and which detector produced them.
public final class PrivacyCounters: Sendable {
    public struct Snapshot: Sendable, Equatable {
        /// Frames that went through the masker.
        public internal(set) var frames = 0
        /// Frames the detectors searched: all of them per frame, a sample in the delay line.
        public internal(set) var framesSearched = 0
        /// Frames in which at least one box was masked.
        public internal(set) var framesWithFaces = 0
        /// Boxes masked, summed over frames (a face held for 10 frames counts 10).
        public internal(set) var facesMasked = 0
        /// Detections that matched no box already masked: roughly, faces that appeared.
        public internal(set) var facesAppeared = 0
        /// Frames in which something crossing an edge was masked (`EdgeGuard`).
        public internal(set) var framesEdgeGuarded = 0
        /// Frames masked whole because detection failed.
        public internal(set) var framesFailedClosed = 0
        /// Frames that left the privacy pass searched themselves, and those that left
        /// masked by boxes carried from searches before and after them.
        public internal(set) var framesReleasedBySearch = 0
        public internal(set) var framesReleasedByTracking = 0
        /// Searches per second over about the last ten searches: the inverse of their mean
        /// spacing. (A mean of each spacing's inverse read searched frames that the delay
        /// line lets out together, a lookback's, as bursts twice the real rate.)
        public var searchesPerSecond: Double { meanSearchSpacingS > 0 ? 1 / meanSearchSpacingS : 0 }
        fileprivate var meanSearchSpacingS: Double = 0
        fileprivate var lastSearchAt: Double?
        /// Times a new frame waited for a search because the delay line was full of frames
        /// not yet searched (detection is behind: a live source drops frames meanwhile),
        /// and when that last happened (seconds of system uptime).
        public internal(set) var waitsForDetection = 0
        public internal(set) var lastWaitAt: Double?
        /// Why detection last failed, if it ever did.
        public internal(set) var lastFailure: PrivacyError?
        public internal(set) var lastDetectionMs: Double = 0
        public internal(set) var totalDetectionMs: Double = 0

        /// Whether a frame waited for detection in the last `seconds`.
        public func waitedForDetection(withinSeconds seconds: Double) -> Bool {
            guard let lastWaitAt else { return false }
            return ProcessInfo.processInfo.systemUptime - lastWaitAt <= seconds
        }

        /// Detection time per searched frame.
        public var meanDetectionMs: Double { framesSearched > 0 ? totalDetectionMs / Double(framesSearched) : 0 }
    }

    /// The detectors searching (`DetectorSetup.name`), and why they are weaker than they
    /// could be, if they are.
    public let detector: String
    public let weakerDetectorReason: String?
    /// What runs the face net, and why it is not the faster one.
    public let engine: FaceNetEngine
    public let engineFallbackReason: String?
    private let state = Mutex(Snapshot())

    public init(
        detector: String = "none", engine: FaceNetEngine = .openCV, weakerDetectorReason: String? = nil,
        engineFallbackReason: String? = nil
    ) {
        self.detector = detector
        self.engine = engine
        self.weakerDetectorReason = weakerDetectorReason
        self.engineFallbackReason = engineFallbackReason
    }

    public func snapshot() -> Snapshot {
        state.withLock { $0 }
    }

    /// - Parameter detectionMs: how long searching this frame took; nil if it was not searched.
    func recordFrame(masked: Int, appeared: Int, edgeGuarded: Bool = false, detectionMs: Double?) {
        state.withLock { totals in
            totals.frames += 1
            totals.framesEdgeGuarded += edgeGuarded ? 1 : 0
            totals.framesWithFaces += masked > 0 ? 1 : 0
            totals.facesMasked += masked
            totals.facesAppeared += appeared
            totals.recordSearch(detectionMs)
        }
    }

    func recordWaitForDetection() {
        let now = ProcessInfo.processInfo.systemUptime
        state.withLock { totals in
            totals.waitsForDetection += 1
            totals.lastWaitAt = now
        }
    }

    func recordFailure(_ failure: PrivacyError, detectionMs: Double?) {
        state.withLock { totals in
            totals.frames += 1
            totals.framesFailedClosed += 1
            totals.lastFailure = failure
            totals.recordSearch(detectionMs)
        }
    }
}

extension PrivacyCounters.Snapshot {
    fileprivate mutating func recordSearch(_ detectionMs: Double?) {
        guard let detectionMs else {
            framesReleasedByTracking += 1
            return
        }
        framesReleasedBySearch += 1
        framesSearched += 1
        lastDetectionMs = detectionMs
        totalDetectionMs += detectionMs
        let now = ProcessInfo.processInfo.systemUptime
        if let last = lastSearchAt {
            let spacing = max(0, now - last)
            meanSearchSpacingS = meanSearchSpacingS == 0 ? spacing : meanSearchSpacingS * 0.9 + spacing * 0.1
        }
        lastSearchAt = now
    }
}
