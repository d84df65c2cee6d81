import Foundation
import Synchronization
import Testing
@testable import AllSparkNode

/// How a fleet fetch hands nodes out: folder names that a re-run finds again, the nodes
/// whose footage comes from the bucket started first, and never more at once than allowed.
struct FleetFetchOrderTests {
    private func node(_ name: String, id: String, online: Bool) -> FleetNode {
        FleetNode(
            id: id, name: name, urls: [], foundBy: [.bucket],
            live: online ? FleetNode.Live(url: "http://127.0.0.1:1", status: "ok", ring: nil, clock: nil) : nil)
    }

    @Test("a name two known nodes share gets each node's id; a later node with a taken name gets its id")
    func folderNames() {
        let first = node("cam", id: "11111111-aaaa", online: true)
        let second = node("cam", id: "22222222-bbbb", online: false)
        let other = node("door/left", id: "33333333-cccc", online: true)
        var names = FolderNames(known: [first, second, other])
        #expect(names.claim(for: other) == "door_left")
        #expect(names.claim(for: second) == "cam-22222222")
        #expect(names.claim(for: first) == "cam-11111111")
        // Found later by mDNS only: the plain name is taken.
        let announced = node("door/left", id: "44444444-dddd", online: true)
        names.learn([announced])
        #expect(names.claim(for: announced) == "door_left-44444444")
        // Learning a node again does not make its name look shared.
        var again = FolderNames(known: [other])
        again.learn([other])
        #expect(again.claim(for: other) == "door_left")
    }

    @Test("names that are no folder name are made plain")
    func hostileNames() {
        var names = FolderNames(known: [])
        #expect(names.claim(for: node("..", id: "55555555", online: true)) == "node_..")
        #expect(names.claim(for: node("", id: "66666666", online: true)) == "node_")
    }

    @Test("offline nodes, fetched from the bucket, start before the live ones")
    func bucketBoundFirst() {
        let nodes = [node("a", id: "1", online: true), node("b", id: "2", online: false), node("c", id: "3", online: true), node("d", id: "4", online: false)]
        #expect(FleetFetcher.bucketBoundFirst(nodes).map(\.name) == ["b", "d", "a", "c"])
    }

    @Test("never more tasks at once than the limit; every item's result, in the items' order")
    func boundedTasks() async throws {
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let outputs = try await BoundedTasks.map(Array(0..<40), limit: 3) { item in
            let now = running.add(1, ordering: .relaxed).newValue
            most.max(now, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(item % 5))
            running.subtract(1, ordering: .relaxed)
            return item * 2
        }
        #expect(outputs == Array(0..<40).map { $0 * 2 })
        #expect(most.load(ordering: .relaxed) <= 3)
        #expect(most.load(ordering: .relaxed) >= 1)
    }

    @Test("items that arrive later are still run, within the limit")
    func boundedTasksFromAStream() async throws {
        let (stream, feed) = AsyncStream.makeStream(of: Int.self)
        let late = Task {
            for item in 0..<5 { feed.yield(item) }
            try await Task.sleep(for: .milliseconds(50))
            for item in 5..<10 { feed.yield(item) }
            feed.finish()
        }
        let outputs = try await BoundedTasks.map(stream, limit: 2) { $0 + 100 }
        try await late.value
        #expect(outputs.sorted() == Array(100..<110))
    }
}
