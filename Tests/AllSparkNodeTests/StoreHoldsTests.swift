import Foundation
import Logging
import Testing
@testable import AllSparkNode

/// Holds (evidence locks): what they keep whatever the cap, what they may take of it, and
/// that they last as long as the store does.
@Suite("store holds")
struct StoreHoldsTests {
    @Test("a held range outlives a cap lowered under it and a ring that turns over ten times; the cap is never exceeded")
    func heldChunksOutliveTheRing() throws {
        let test = try TestStore(chunks: 4, label: "holds-ring")
        let held = test.stamps[1]
        try test.hold(1...1)
        let cap = 3 * test.oneChunk + test.oneChunk / 2
        test.store.setCap(bytes: cap)
        #expect(test.stamps.contains(held), "lowering the cap takes unheld chunks only")
        var peak: Int64 = 0
        for index in 4..<34 {
            try test.record(index)
            peak = max(peak, test.store.usage.usedBytes)
            #expect(test.stamps.contains(held), "chunk \(index): the held chunk is still there")
        }
        #expect(peak <= cap, "held bytes count toward the cap: \(peak) of \(cap)")
        #expect(test.store.usage.heldChunks == 1 && test.store.usage.heldBytes == test.oneChunk)
        #expect(test.store.usage.evictedByCap.chunks == 4 + 30 - 3)
        #expect(TestFiles.fileNames(in: test.directory).contains("chunk_\(held).mp4"))
    }

    @Test("releasing a hold lets the ring take its chunks at once")
    func releaseFreesTheChunks() throws {
        let test = try TestStore(chunks: 4, label: "holds-release")
        let held = test.stamps[0]
        let placement = try test.hold(0...0)
        test.store.setCap(bytes: 2 * test.oneChunk + test.oneChunk / 2)
        #expect(test.stamps == [held, test.stamps.last!])
        let newest = test.stamps.last!
        _ = try test.store.releaseHold(id: placement.hold.id)
        let next = try test.record(4)
        #expect(test.stamps == [newest, next.stamp], "the ring takes the released chunk first")
        #expect(test.store.holds().isEmpty)
        #expect(throws: HoldError.unknownID(placement.hold.id)) { try test.store.releaseHold(id: placement.hold.id) }
    }

    @Test("the share limit refuses the hold that would pass it, naming what it needs; recorded and expected footage both count")
    func shareLimitRefuses() throws {
        let test = try TestStore(chunks: 6, label: "holds-share")
        // Half of 6.5 chunks: three chunks may be held, not four.
        test.store.setCap(bytes: 6 * test.oneChunk + test.oneChunk / 2)
        try test.hold(0...1)
        do {
            try test.hold(2...3)
            Issue.record("a third and fourth held chunk pass the share")
        } catch HoldError.overShare(let shortfall) {
            #expect(shortfall.needed.recordedBytes == 2 * test.oneChunk && shortfall.alreadyHeldBytes == 2 * test.oneChunk)
            #expect(HoldError.overShare(shortfall).description.contains("the hold needs 0.19 MiB (0.19 MiB recorded, 0.00 MiB expected"))
            #expect(HoldError.overShare(shortfall).description.contains("videoBufferMaxHeldShare 0.5"))
        }
        // The next minute, not recorded yet: at ~10 MB/s of these fake chunks it needs far more than the share.
        let newestEnd = test.store.allChunks.last!.endMs
        do {
            _ = try test.store.placeHold(try HoldRequest(startMs: newestEnd + 1000, endMs: newestEnd + 61_000, reason: "planned experiment", nowMs: newestEnd))
            Issue.record("a future hold past the share was placed")
        } catch HoldError.overShare(let shortfall) {
            #expect(shortfall.needed.recordedBytes == 0 && shortfall.needed.expectedBytes > test.oneChunk)
        }
        #expect(test.store.holds().count == 1, "refused holds are not written")
    }

    @Test("holds outlive the store's closing; a torn or empty holds file stops the store with the file named")
    func holdsFileIsDurableAndCheckedAtOpen() throws {
        let directory: URL
        let holdID: String
        do {
            let test = try TestStore(chunks: 3, label: "holds-reopen")
            directory = test.directory
            holdID = try test.hold(1...1, reason: "incident 42").hold.id
        }
        do {
            let reopened = try ChunkStore(directory: directory.path, capBytes: 1, logger: Logger(label: "test"))
            #expect(reopened.holds().map(\.id) == [holdID] && reopened.holds().first?.reason == "incident 42")
            #expect(reopened.allChunks.count == 1, "a cap of one byte leaves only the held chunk")
        }
        let path = directory.appendingPathComponent(HoldsFile.fileName).path
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        for damaged in [whole.prefix(whole.count / 2), Data(), Data("{\"format\":\"allspark-holds/1\"}".utf8)] {
            try damaged.write(to: URL(fileURLWithPath: path))
            do {
                _ = try ChunkStore(directory: directory.path, capBytes: 1 << 30, logger: Logger(label: "test"))
                Issue.record("a store opened on a damaged holds file (\(damaged.count) bytes)")
            } catch let error as HoldError {
                guard case .unreadableFile(let named, _) = error else { throw error }
                #expect(named == path)
                #expect(error.description.contains("will not run without knowing its holds"))
            }
        }
    }

    @Test("a hold written by another process (allspark-node hold) is honoured at the store's next eviction")
    func holdFromAnotherWriter() throws {
        let test = try TestStore(chunks: 4, label: "holds-cli")
        let other = HoldLedger(directory: test.directory)
        let placement = try other.add(
            try HoldRequest(startMs: TestStore.startMs(0), endMs: TestStore.startMs(0) + 1000, reason: "from the CLI"),
            chunks: { (try? ChunkCatalog.read(directory: test.directory.path)) ?? [] },
            budget: { HoldShareBudget(capBytes: 1 << 30, share: 0.5, recentChunks: $0) })
        #expect(placement.chunks.map(\.stamp) == [test.stamps[0]])
        let held = test.stamps[0]
        test.store.setCap(bytes: 2 * test.oneChunk)
        #expect(test.stamps.first == held)
        #expect(test.store.holdIDs(of: test.store.allChunks) == [held: [placement.hold.id]])
    }

    @Test("a cap or share too small for the holds in force is named as a problem")
    func capUnderHoldsIsAProblem() throws {
        let test = try TestStore(chunks: 4, label: "holds-cap")
        try test.hold(0...1)
        #expect(test.store.retentionProblem(capBytes: 4 * test.oneChunk, heldShare: 0.5) == nil)
        let problem = try #require(test.store.retentionProblem(capBytes: 3 * test.oneChunk, heldShare: 0.5))
        #expect(problem.contains("release a hold first"))
    }

    @Test("overlapping holds count their chunks and their footage to come once")
    func overlappingHoldsCountOnce() throws {
        let test = try TestStore(chunks: 3, label: "holds-overlap")
        let chunks = test.store.allChunks
        let budget = HoldShareBudget(capBytes: 1 << 30, share: 0.5, bytesPerMs: 10)
        let newestEnd = chunks.last!.endMs
        let first = Hold(startMs: chunks[0].startMs, endMs: newestEnd + 1000, reason: "a", createdMs: 0, expiresMs: nil)
        let second = Hold(startMs: chunks[1].startMs, endMs: newestEnd + 3000, reason: "b", createdMs: 0, expiresMs: nil)
        let demand = budget.demand(of: [first, second], chunks: chunks, nowMs: newestEnd)
        #expect(demand.recordedBytes == 3 * test.oneChunk)
        #expect(demand.expectedBytes == 3000 * 10, "the 3 s after the newest frame, once")
        let lapsed = Hold(startMs: chunks[0].startMs, endMs: chunks[0].endMs + 1, reason: "c", createdMs: 0, expiresMs: 5)
        #expect([first, lapsed].active(atMs: 10) == [first])
    }

    @Test("bad hold requests are refused with what is wrong")
    func badRequests() {
        #expect(throws: HoldError.invalid("start must be before end")) { try HoldRequest(startMs: 2000, endMs: 1000, reason: "x") }
        #expect(throws: HoldError.invalid("a hold needs a reason (who asked for it and why)")) { try HoldRequest(startMs: 1000, endMs: 2000, reason: "  ") }
        #expect(throws: HoldError.self) { try HoldRequest(startMs: 0, endMs: 400 * 86_400_000, reason: "x") }
        #expect(throws: HoldError.invalid("expires must be in the future")) { try HoldRequest(startMs: 1000, endMs: 2000, reason: "x", expiresMs: 5, nowMs: 10) }
        #expect(throws: HoldError.self) { try HoldRequest(startMs: 1000, endMs: 2000, reason: "x", id: "../etc") }
    }
}
