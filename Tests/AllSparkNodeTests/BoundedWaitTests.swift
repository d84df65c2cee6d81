import Foundation
import Synchronization
import Testing
@testable import AllSparkNode

/// Replay's wait on the archive from GStreamer's threads (`BoundedWait`): async work's
/// result within the limit; nil past it or on an error, and what the work still made after
/// the wait gave up is handed over to be undone.
struct BoundedWaitTests {
    /// Runs `wait` on a thread outside Swift's cooperative pool, as GStreamer's are.
    private func onAnotherThread<T: Sendable>(_ wait: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: wait()) }
        }
    }

    @Test("work done within the limit gives its result; work that throws gives nil")
    func resultWithinTheLimit() async {
        #expect(await onAnotherThread { BoundedWait.result(within: .seconds(30)) { 42 } } == 42)
        struct Failed: Error {}
        #expect(await onAnotherThread { BoundedWait.result(within: .seconds(30)) { () async throws -> Int in throw Failed() } } == nil)
    }

    @Test("the work runs while every thread of Swift's cooperative pool is blocked")
    func workRunsBesideABlockedPool() async {
        let value = await onAnotherThread { () -> Int? in
            let release = DispatchSemaphore(value: 0)
            let threads = ProcessInfo.processInfo.activeProcessorCount
            let blocking = BlockingCount()
            for _ in 0..<threads {
                Task.detached { @Sendable in
                    blocking.count.add(1, ordering: .relaxed)
                    release.wait()
                }
            }
            // Every pool thread taken (or 10 s, should another test hold one meanwhile).
            for _ in 0..<1000 where blocking.count.load(ordering: .relaxed) < threads { usleep(10_000) }
            defer { for _ in 0..<threads { release.signal() } }
            return BoundedWait.result(within: .seconds(20)) { 42 }
        }
        #expect(value == 42)
    }

    @Test("work past the limit gives nil, and what it makes later goes to abandoned")
    func lateWorkIsAbandoned() async throws {
        let abandoned = Mutex<[Int]>([])
        let gate = DispatchSemaphore(value: 0)
        // The work ends only once the wait has given up: its value can only be abandoned.
        let waited = await onAnotherThread {
            BoundedWait.result(within: .milliseconds(50), abandoned: { value in abandoned.withLock { $0.append(value) } }) {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        gate.wait()
                        continuation.resume()
                    }
                }
                return 7
            }
        }
        #expect(waited == nil)
        gate.signal()
        var handed: [Int] = []
        for _ in 0..<3000 where handed.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            handed = abandoned.withLock { $0 }
        }
        #expect(handed == [7])
    }
}

/// Pool threads blocked so far.
private final class BlockingCount: Sendable {
    let count = Atomic<Int>(0)
}
