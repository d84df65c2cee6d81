import Foundation
import Logging
import Testing
@testable import AllSparkNode

/// Holds `fleet hold` leaves in the bucket for a node that is down: one object each (two
/// writers at once lose neither), the old single record still read, and the node taking them
/// into its ring when it is back. The bucket here is in memory; against radosgw:
/// Tests/protocol/test_fleet.py.
@Suite("bucket holds")
struct BucketHoldsTests {
    static let layout = ArchiveLayout(prefix: "cam-1/")

    static func hold(_ id: String, _ indexes: ClosedRange<Int>, expiresMs: Int64? = nil, reason: String = "incident") -> Hold {
        Hold(id: id, startMs: TestStore.startMs(indexes.lowerBound), endMs: TestStore.startMs(indexes.upperBound) + 1000, reason: reason,
             createdMs: TestStore.firstMs, expiresMs: expiresMs)
    }

    static func intake(_ bucket: MemoryBucket, _ test: TestStore) -> BucketHoldsIntake {
        BucketHoldsIntake(holds: BucketHolds(bucket: bucket, layout: layout), store: test.store, nodeName: "cam-1", logger: Logger(label: "test"))
    }

    @Test("fifty holds written at once for one node all stay, each in its own object; the old single record is still read")
    func concurrentWritersLoseNothing() async throws {
        let bucket = MemoryBucket()
        let holds = BucketHolds(bucket: bucket, layout: Self.layout)
        let ids = (0..<50).map { "hold-\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids { group.addTask { try await holds.add(Self.hold(id, 0...1)) } }
            try await group.waitForAll()
        }
        #expect(Set(try await holds.read().map(\.id)) == Set(ids))
        #expect(try await bucket.keys(prefix: "cam-1/holds/").count == 50)
        #expect(try await bucket.keys(prefix: "cam-1/holds.json").isEmpty, "the old record is not written any more")

        // A record written before: its holds wait too, once each; an id with its own object is that object's.
        await bucket.put("cam-1/holds.json", try HoldsFile.encode([Self.hold("hold-old", 2...3), Self.hold("hold-0", 0...1)]))
        let scan = try await holds.scan()
        #expect(scan.waiting.count == 51 && scan.unreadable.isEmpty)
        #expect(scan.waiting.first { $0.hold.id == "hold-old" }?.key == "cam-1/holds.json")
        #expect(scan.waiting.first { $0.hold.id == "hold-0" }?.key == "cam-1/holds/hold-0.json")
        // Adding an id that is there already changes nothing.
        try await holds.add(Self.hold("hold-0", 5...6, reason: "again"))
        #expect(try await holds.read().first { $0.id == "hold-0" }?.reason == "incident")
    }

    @Test("a node back up takes the bucket's holds into its ring, marks them taken, and keeps their chunks past the cap; a second pass places nothing twice")
    func nodeTakesItsHoldsFromTheBucket() async throws {
        let test = try TestStore(chunks: 6, label: "bucket-holds-take")
        let bucket = MemoryBucket()
        let holds = BucketHolds(bucket: bucket, layout: Self.layout)
        try await holds.add(Self.hold("hold-new", 1...1))
        await bucket.put("cam-1/holds.json", try HoldsFile.encode([Self.hold("hold-old", 3...3)]))
        let heldStamps = [test.stamps[1], test.stamps[3]]

        let intake = Self.intake(bucket, test)
        let outcome = try await intake.pass()
        #expect(Set(outcome.taken) == ["hold-new", "hold-old"] && outcome.kept.isEmpty)
        #expect(Set(test.store.holds().map(\.id)) == ["hold-new", "hold-old"])
        #expect(test.store.holds().first { $0.id == "hold-new" }?.reason == "incident", "the hold keeps its id, span and reason")
        #expect(try await bucket.keys(prefix: "cam-1/holds/").isEmpty, "the waiting object goes once the hold is taken")
        #expect(try await bucket.keys(prefix: "cam-1/holds-taken/") == ["cam-1/holds-taken/hold-new.json", "cam-1/holds-taken/hold-old.json"])
        let taken = try JSONDecoder().decode(BucketHolds.TakenRecord.self, from: Data(await bucket.objects["cam-1/holds-taken/hold-old.json"]!))
        #expect(taken.node == "cam-1" && taken.hold.id == "hold-old" && taken.format == "allspark-hold-taken/1")
        #expect(try await holds.read().isEmpty, "taken holds are the node's own: the bucket no longer counts them")
        #expect(await bucket.objects["cam-1/holds.json"] != nil, "the old record is not rewritten")

        // Again (the next minute, or the next start): nothing is placed twice.
        let again = try await intake.pass()
        #expect(again == BucketHoldsIntake.Outcome())
        #expect(test.store.holds().count == 2)

        // The ring turns over three times under a cap of four chunks: the held ones stay.
        test.store.setCap(bytes: 4 * test.oneChunk + test.oneChunk / 2)
        for index in 6..<18 { try test.record(index) }
        #expect(Set(heldStamps).isSubset(of: Set(test.stamps)))
        #expect(test.store.usage.heldChunks == 2)

        // Released on the node, a taken hold is gone for good: the bucket does not put it back.
        _ = try test.store.releaseHold(id: "hold-new")
        #expect(try await intake.pass() == BucketHoldsIntake.Outcome())
        #expect(test.store.holds().map(\.id) == ["hold-old"])
    }

    @Test("a hold the holds file has already (same id) is marked taken, not placed twice")
    func holdAlreadyOnFileIsNotDuplicated() async throws {
        let test = try TestStore(chunks: 4, label: "bucket-holds-dup")
        let placed = try test.store.placeHold(try HoldRequest(
            startMs: TestStore.startMs(1), endMs: TestStore.startMs(1) + 1000, reason: "incident", id: "hold-same"))
        let bucket = MemoryBucket()
        try await BucketHolds(bucket: bucket, layout: Self.layout).add(Self.hold("hold-same", 1...1))
        let outcome = try await Self.intake(bucket, test).pass()
        #expect(outcome.taken == ["hold-same"])
        #expect(test.store.holds() == [placed.hold])
    }

    @Test("a hold past the held share, or with another span under an id the node has, stays in the bucket and is taken once it fits")
    func holdThatCannotBePlacedStays() async throws {
        let test = try TestStore(chunks: 8, label: "bucket-holds-share")
        // Half of 6.5 chunks may be held: three chunks, not four.
        test.store.setCap(bytes: 6 * test.oneChunk + test.oneChunk / 2)
        _ = try test.store.placeHold(try HoldRequest(startMs: TestStore.startMs(6), endMs: TestStore.startMs(6) + 1000, reason: "local", id: "hold-clash"))
        let bucket = MemoryBucket()
        let holds = BucketHolds(bucket: bucket, layout: Self.layout)
        try await holds.add(Self.hold("hold-big", 2...5))
        try await holds.add(Self.hold("hold-clash", 7...7))
        let intake = Self.intake(bucket, test)

        let outcome = try await intake.pass()
        #expect(outcome.taken.isEmpty)
        #expect(outcome.kept["hold-big"]?.contains("videoBufferMaxHeldShare") == true, "\(outcome.kept)")
        #expect(outcome.kept["hold-clash"]?.contains("exists already with another span") == true, "\(outcome.kept)")
        #expect(Set(try await holds.read().map(\.id)) == ["hold-big", "hold-clash"], "both stay in the bucket, where the archive keeps them")
        #expect(test.store.holds().map(\.id) == ["hold-clash"])

        // The operator raises the cap: the next pass takes it.
        test.store.setCap(bytes: 20 * test.oneChunk)
        let later = try await intake.pass()
        #expect(later.taken == ["hold-big"] && Set(later.kept.keys) == ["hold-clash"])
        #expect(Set(test.store.holds().map(\.id)) == ["hold-big", "hold-clash"])
    }

    @Test("a hold that lapsed while the node was down is removed, not placed; an unreadable object is named and the rest taken")
    func lapsedAndUnreadable() async throws {
        let test = try TestStore(chunks: 4, label: "bucket-holds-lapsed")
        let bucket = MemoryBucket()
        let holds = BucketHolds(bucket: bucket, layout: Self.layout)
        let nowMs = WallClock.nowMs()
        try await holds.add(Self.hold("hold-lapsed", 0...0, expiresMs: nowMs - 1000))
        try await holds.add(Self.hold("hold-good", 1...1, expiresMs: nowMs + 3_600_000))
        await bucket.put("cam-1/holds/hold-torn.json", Data("{\"format\": \"allspark-holds/1\", \"ho".utf8))

        let outcome = try await Self.intake(bucket, test).pass(nowMs: nowMs)
        #expect(outcome.lapsed == ["hold-lapsed"] && outcome.taken == ["hold-good"] && outcome.unreadable == ["cam-1/holds/hold-torn.json"])
        #expect(test.store.holds().map(\.id) == ["hold-good"])
        #expect(test.store.holds().first?.expiresMs == nowMs + 3_600_000)
        #expect(try await bucket.keys(prefix: "cam-1/holds/") == ["cam-1/holds/hold-torn.json"])
        // The archive's age deletion does not read a torn object as "no holds".
        await #expect(throws: HoldError.self) { try await holds.read() }
    }
}

/// A bucket in memory; every call suspends, as a request to S3 would.
actor MemoryBucket: HoldsBucket {
    nonisolated let name = "test-bucket"
    private(set) var objects: [String: [UInt8]] = [:]

    func put(_ key: String, _ data: Data) { objects[key] = Array(data) }

    func keys(prefix: String) async throws -> [String] {
        await Task.yield()
        return objects.keys.filter { $0.hasPrefix(prefix) }.sorted()
    }

    func object(key: String, upTo limit: Int) async throws -> [UInt8]? {
        await Task.yield()
        return objects[key].map { Array($0.prefix(limit)) }
    }

    func exists(key: String) async throws -> Bool {
        await Task.yield()
        return objects[key] != nil
    }

    func write(key: String, bytes: [UInt8]) async throws {
        await Task.yield()
        objects[key] = bytes
    }

    func remove(key: String) async throws {
        await Task.yield()
        objects[key] = nil
    }
}
