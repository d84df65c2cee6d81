import Synchronization

/// A masker's running totals, updated by the recording thread and readable from any
/// thread (status page, logs).
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
        /// Frames masked whole because detection failed.
        public internal(set) var framesFailedClosed = 0
        /// Why detection last failed, if it ever did.
        public internal(set) var lastFailure: PrivacyError?
        public internal(set) var lastDetectionMs: Double = 0
        public internal(set) var totalDetectionMs: Double = 0

        /// Detection time per searched frame.
        public var meanDetectionMs: Double { framesSearched > 0 ? totalDetectionMs / Double(framesSearched) : 0 }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public func snapshot() -> Snapshot {
        state.withLock { $0 }
    }

    /// - Parameter detectionMs: how long searching this frame took; nil if it was not searched.
    func recordFrame(masked: Int, appeared: Int, detectionMs: Double?) {
        state.withLock { totals in
            totals.frames += 1
            totals.framesWithFaces += masked > 0 ? 1 : 0
            totals.facesMasked += masked
            totals.facesAppeared += appeared
            totals.recordSearch(detectionMs)
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
        guard let detectionMs else { return }
        framesSearched += 1
        lastDetectionMs = detectionMs
        totalDetectionMs += detectionMs
    }
}
