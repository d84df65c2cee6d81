import Foundation
import Testing
@testable import AllSparkNode

/// Which reason a fleet fetch gives each stretch of a node's range that no chunk covers,
/// the merging of mDNS and bucket records, and the token file.
struct FleetGapTests {
    private let nowMs: Int64 = 1_000_000

    private func record(runs: [(Int64, Int64)], ring: (Int64, Int64)?, archive: (Int64, Int64)?, evicted: [(Int64, Int64)] = []) -> NodeRecord {
        NodeRecord(
            id: "a", name: "cam-101", state: .running, apiURLs: [], version: "test", clock: nil,
            ring: ring.map { NodeRecord.Extent(firstMs: $0.0, lastMs: $0.1) }, archive: archive.map { NodeRecord.Extent(firstMs: $0.0, lastMs: $0.1) },
            archivePrefix: "cam-101/", lastSeenMs: runs.last?.1 ?? 0, runs: runs.map { NodeRecord.Run(startMs: $0.0, lastSeenMs: $0.1) },
            evictedBeforeArchive: evicted.map { NodeRecord.Extent(firstMs: $0.0, lastMs: $0.1) })
    }

    private func gaps(_ context: GapFinder.Context, fetched: [(Int64, Int64)], failed: [(Int64, Int64, String)] = [], from: Int64, to: Int64) -> [String] {
        GapFinder(context: context).gaps(startMs: from, endMs: to, fetched: fetched, failed: failed.map { ($0.0, $0.1, $0.2) })
            .map { "\($0.startMs)-\($0.endMs) \($0.reason.rawValue)" }
    }

    @Test("a stopped node: before its first run not recorded, between runs and after it node down")
    func stoppedNode() {
        let stopped = record(runs: [(100_000, 200_000), (300_000, 400_000)], ring: (100_000, 400_000), archive: (100_000, 400_000))
        let context = GapFinder.Context(online: false, record: stopped, ring: stopped.ring, nowMs: nowMs)
        let found = gaps(context, fetched: [(100_000, 200_000), (300_000, 400_000)], from: 50_000, to: 500_000)
        #expect(found == ["50000-100000 not recorded", "200000-300000 node down", "400000-500000 node down"])
    }

    @Test("a dead node's ring held footage the bucket lacks: node down, and it counts as existing")
    func unarchivedRingOfADeadNode() throws {
        let dead = record(runs: [(100_000, 300_000)], ring: (100_000, 300_000), archive: (100_000, 250_000))
        let context = GapFinder.Context(online: false, record: dead, ring: dead.ring, nowMs: nowMs)
        let found = GapFinder(context: context).gaps(startMs: 100_000, endMs: 300_000, fetched: [(100_000, 250_000)], failed: [])
        let gap = try #require(found.first)
        #expect(found.count == 1 && gap.reason == .nodeDown && gap.footageExists && gap.startMs == 250_000)
    }

    @Test("evicted before archiving, fetch failed, the future, and a live node with no archive")
    func otherReasons() {
        let evicting = record(runs: [(0, 500_000)], ring: (300_000, 500_000), archive: (0, 500_000), evicted: [(100_000, 150_000)])
        let online = GapFinder.Context(online: true, record: evicting, ring: evicting.ring, nowMs: 480_000)
        #expect(
            gaps(online, fetched: [(0, 100_000), (150_000, 400_000)], failed: [(400_000, 450_000, "x")], from: 0, to: 500_000)
                == ["100000-150000 evicted before archiving", "400000-450000 fetch failed", "450000-480000 not recorded", "480000-500000 not recorded"])
        let noArchive = GapFinder.Context(online: true, record: nil, ring: NodeRecord.Extent(firstMs: 300_000, lastMs: 400_000), nowMs: nowMs)
        #expect(gaps(noArchive, fetched: [(300_000, 400_000)], from: 200_000, to: 400_000) == ["200000-300000 no archive"])
        let unreachableBucket = GapFinder.Context(online: false, record: evicting, ring: evicting.ring, bucketError: "refused", nowMs: nowMs)
        // What the record says was lost stays lost; the rest is the bucket's failure.
        #expect(gaps(unreachableBucket, fetched: [], from: 100_000, to: 200_000) == ["100000-150000 evicted before archiving", "150000-200000 fetch failed"])
    }

    @Test("holes shorter than the tolerance between chunks are not gaps")
    func shortHolesAreNotGaps() {
        let context = GapFinder.Context(online: true, record: nil, ring: NodeRecord.Extent(firstMs: 0, lastMs: 10_000), nowMs: nowMs)
        #expect(gaps(context, fetched: [(0, 1_800), (2_000, 3_800), (4_000, 10_000)], from: 0, to: 10_000).isEmpty)
    }

    @Test("evicted ranges merge where chunks touch and keep the newest 100")
    func evictedRanges() {
        var ranges = EvictedRanges()
        ranges.add(startMs: 0, endMs: 1_800)
        ranges.add(startMs: 2_000, endMs: 3_800)
        ranges.add(startMs: 60_000, endMs: 61_800)
        #expect(ranges.ranges == [NodeRecord.Extent(firstMs: 0, lastMs: 3_800), NodeRecord.Extent(firstMs: 60_000, lastMs: 61_800)])
        for index in 0..<150 { ranges.add(startMs: Int64(index) * 100_000 + 200_000, endMs: Int64(index) * 100_000 + 201_000) }
        #expect(ranges.ranges.count == EvictedRanges.kept && ranges.ranges.last?.firstMs == 149 * 100_000 + 200_000)
    }

    @Test("mDNS and the bucket merge by id; the mDNS address is tried first")
    func mergeById() {
        let bucket = record(runs: [], ring: nil, archive: nil)
        let same = DiscoveredService(host: "127.0.0.1", port: 9000, name: "cam-101", hostName: "h.local", txt: ["id": "a", "tls": "off"])
        let other = DiscoveredService(host: "127.0.0.2", port: 9001, name: "cam-102", hostName: "g.local", txt: ["id": "b", "tls": "on"])
        let merged = FleetDiscovery.merge(records: [bucket], announced: [same, other])
        #expect(merged.count == 2)
        #expect(merged[0].id == "a" && merged[0].foundBy == [.mdns, .bucket] && merged[0].urls.first == "http://127.0.0.1:9000")
        #expect(merged[1].id == "b" && merged[1].foundBy == [.mdns] && merged[1].urls == ["https://127.0.0.2:9001"])
    }

    @Test("a token file: name: token lines, comments, and a malformed line named by number")
    func tokenFile() throws {
        let tokens = try FleetTokens.parse("# lab\ncam-101: abc\n\n  cam-102 :  d:e  \n", file: "t")
        #expect(tokens == ["cam-101": "abc", "cam-102": "d:e"])
        #expect(throws: FleetTokens.Malformed.self) { try FleetTokens.parse("cam-101 abc\n", file: "t") }
    }
}
