import Synchronization

/// Totals of what the node has uploaded, for /metrics and the dashboard.
public final class UploadCounters: Sendable {
    private let bytes = Atomic<Int64>(0)
    private let files = Atomic<Int>(0)
    private let last = Mutex<LastUpload?>(nil)

    public struct LastUpload: Sendable, Equatable {
        public let atMs: Int64
        public let files: [String]
    }

    public init() {}

    func recordUpload(bytes count: Int64) {
        bytes.add(count, ordering: .relaxed)
        files.add(1, ordering: .relaxed)
    }

    func recordFinishedRequest(files names: [String]) {
        last.withLock { $0 = LastUpload(atMs: WallClock.nowMs(), files: names) }
    }

    public var bytesUploaded: Int64 { bytes.load(ordering: .relaxed) }
    public var filesUploaded: Int { files.load(ordering: .relaxed) }
    public var lastUpload: LastUpload? { last.withLock { $0 } }
}
