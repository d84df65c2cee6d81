import Foundation
import Synchronization

/// JPEGs of the recorder's latest masked frame, encoded on request and cached until a
/// newer frame arrives. Only masked frames ever reach it: the recorder copies after the
/// privacy pass.
public final class SnapshotSource: Sendable {
    private let recorder: Recorder
    private let cache = Mutex<(sequence: Int, jpeg: Data, captureTimeMs: Int64)?>(nil)

    init(recorder: Recorder) {
        self.recorder = recorder
    }

    /// The latest snapshot as JPEG, or nil before the first frame.
    public func latestJPEG() throws -> (jpeg: Data, captureTimeMs: Int64)? {
        guard let snapshot = recorder.latestSnapshot else { return nil }
        if let cached = cache.withLock({ $0 }), cached.sequence == snapshot.sequence {
            return (cached.jpeg, cached.captureTimeMs)
        }
        let jpeg = try JPEGEncoder(width: snapshot.width, height: snapshot.height).encode(packedPlanes: snapshot.planes)
        cache.withLock { $0 = (snapshot.sequence, jpeg, snapshot.captureTimeMs) }
        return (jpeg, snapshot.captureTimeMs)
    }
}
