import Synchronization

/// How far a fleet fetch is: bytes written and nodes done, read by whoever draws progress.
public final class FetchProgress: Sendable {
    private let bytes = Atomic<Int64>(0)
    private let nodes = Atomic<Int>(0)
    private let total = Atomic<Int>(0)
    private let onNodeDone: @Sendable (FetchReport.NodeReport) -> Void

    public init(onNodeDone: @escaping @Sendable (FetchReport.NodeReport) -> Void = { _ in }) {
        self.onNodeDone = onNodeDone
    }

    public var bytesWritten: Int64 { bytes.load(ordering: .relaxed) }
    public var nodesDone: Int { nodes.load(ordering: .relaxed) }
    public var nodesTotal: Int { total.load(ordering: .relaxed) }

    func add(bytes count: Int64) { bytes.add(count, ordering: .relaxed) }
    func adding(nodes count: Int) { total.add(count, ordering: .relaxed) }

    func finished(_ node: FetchReport.NodeReport) {
        nodes.add(1, ordering: .relaxed)
        onNodeDone(node)
    }
}
