import Testing
@testable import AllSparkNode

/// The rule that decides when a chunk is tried again after the store refused one, driven
/// with made-up times and probe results (the full-disk and vanishing-store suites run it for real).
struct StoreRetryPolicyTests {
    private let chunk: Int64 = 600_000
    private let full = StoreCondition.writable(roomBytes: 0, freeBytes: 0)
    private let roomy = StoreCondition.writable(roomBytes: 40 << 20, freeBytes: 41 << 20)

    /// Probes every 250 ms for `seconds`, starting at `fromMs`; returns the times it tried.
    private func probe(_ policy: inout StoreRetryPolicy, fromMs: Int64, seconds: Int64, condition: StoreCondition) -> [Int64] {
        var tries: [Int64] = []
        var now = fromMs
        while now < fromMs + seconds * 1000 {
            if policy.shouldTry(atMs: now, condition: condition, chunkBytes: chunk) {
                tries.append(now)
                policy.failed(atMs: now, condition: condition)
            }
            now += StoreRetryPolicy.probeIntervalMs
        }
        return tries
    }

    @Test("a disk that stays full is tried a few times a minute, less and less often")
    func fullDiskBacksOff() {
        var policy = StoreRetryPolicy()
        policy.failed(atMs: 0, condition: full)
        // A little room, less than a chunk: only the backoff tries.
        let someRoom = StoreCondition.writable(roomBytes: 200_000, freeBytes: 1_250_000)
        let firstMinute = probe(&policy, fromMs: 0, seconds: 60, condition: someRoom)
        #expect(firstMinute.count <= 5, "tries in the first minute: \(firstMinute)")
        let tenMinutes = probe(&policy, fromMs: 60_000, seconds: 600, condition: someRoom)
        #expect(tenMinutes.count <= 12, "tries over the next ten minutes: \(tenMinutes)")
        #expect(zip(tenMinutes, tenMinutes.dropFirst()).allSatisfy { $1 - $0 >= 30_000 })
        // No room at all: a try could not even create the file.
        var empty = StoreRetryPolicy()
        empty.failed(atMs: 0, condition: full)
        let triedWithNoRoom = probe(&empty, fromMs: 0, seconds: 600, condition: full)
        #expect(triedWithNoRoom.isEmpty)
    }

    @Test("space coming back is tried at the next probe, and a try that works ends the wait")
    func spaceReturnsAtOnce() {
        var policy = StoreRetryPolicy()
        policy.failed(atMs: 0, condition: full)
        let triedWhileFull = policy.shouldTry(atMs: 5000, condition: full, chunkBytes: chunk)
        let triedWithRoom = policy.shouldTry(atMs: 5250, condition: roomy, chunkBytes: chunk)
        #expect(!triedWhileFull && triedWithRoom)
        #expect(policy.phase == .trying)
        policy.succeeded()
        #expect(policy.phase == .recording && policy.failures == 0)
    }

    @Test("a failure the probe cannot see is not retried at every probe")
    func invisibleFailureBacksOff() {
        var policy = StoreRetryPolicy()
        // The kernel made the file system read-only after an error: statvfs and access still look fine.
        policy.failed(atMs: 0, condition: roomy)
        let tries = probe(&policy, fromMs: 0, seconds: 120, condition: roomy)
        #expect(!tries.isEmpty && tries.count <= 5, "tries: \(tries)")
        #expect(tries.first! >= StoreRetryPolicy.firstBackoffMs)
    }

    @Test("a store that vanished is tried as soon as it is back, not before")
    func vanishedStoreReturns() {
        var policy = StoreRetryPolicy()
        let gone = StoreCondition.unavailable("store vanished")
        policy.failed(atMs: 0, condition: gone)
        let triedWhileGone = probe(&policy, fromMs: 0, seconds: 300, condition: gone)
        #expect(triedWhileGone.isEmpty)
        let triedOnReturn = policy.shouldTry(atMs: 300_250, condition: roomy, chunkBytes: chunk)
        #expect(triedOnReturn)
    }

    @Test("the chunk estimate follows the chunks recorded and ignores one-frame chunks")
    func chunkEstimate() {
        func record(_ stamp: Int64, frames: Int, bytes: Int64) -> ChunkRecord {
            ChunkRecord(
                stamp: ChunkNaming.stamp(forMs: stamp), format: .mp4, startMs: stamp, endMs: stamp + Int64(frames) * 33,
                frameCount: frames, chunkBytes: bytes, timestampsBytes: 100)
        }
        var estimate = ChunkSizeEstimate(seed: [])
        let guess = estimate.bytes(frames: 60, width: 320, height: 240)
        #expect(guess >= 60 * 320 * 240 / 8)
        estimate.add(record(1000, frames: 60, bytes: 300_000))
        estimate.add(record(3000, frames: 1, bytes: 90_000))
        let measured = estimate.bytes(frames: 60, width: 320, height: 240)
        #expect(measured >= 300_000 && measured < 320_000, "\(measured)")
        for index in 0..<ChunkSizeEstimate.remembered { estimate.add(record(5000 + Int64(index) * 2000, frames: 60, bytes: 120_000)) }
        #expect(estimate.bytes(frames: 60, width: 320, height: 240) < 150_000, "the big chunk was forgotten")
    }
}
