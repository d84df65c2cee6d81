import Synchronization

/// Lets async viewers wait for "something new" without polling: the producer bumps a
/// version; a waiter resumes as soon as the version passes the one it saw, or when its task
/// is cancelled.
final class LiveUpdateSignal: Sendable {
    private struct State {
        var version: UInt64 = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    var version: UInt64 { state.withLock { $0.version } }

    func bump() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.version += 1
            defer { state.waiters.removeAll(keepingCapacity: true) }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once the version is past `seen` (at once when it already is) or the task is cancelled.
    func wait(after seen: UInt64) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.version > seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// As `wait(after:)`, giving up after `timeout`. Returns false when it timed out.
    func wait(after seen: UInt64, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.wait(after: seen)
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || self.version > seen
        }
    }
}
