import Dispatch
import Synchronization

/// Waits, on a thread outside Swift concurrency (one of GStreamer's), for async work for at
/// most a given time. Work that fails or takes longer gives nil and is cancelled; what it
/// still makes after the wait gave up goes to `abandoned`, to be undone there. The work runs
/// on threads of its own (`executor`), not Swift's cooperative pool: a pool kept busy by
/// other work would otherwise leave it unstarted until the limit.
enum BoundedWait {
    static let executor = DispatchTaskExecutor(label: "allspark.bounded-wait")

    static func result<T: Sendable>(
        within limit: Duration, abandoned: @escaping @Sendable (T) -> Void = { _ in },
        _ operation: @escaping @Sendable () async throws -> T
    ) -> T? {
        let outcome = Outcome<T>()
        let finished = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: executor) {
            let value = try? await operation()
            if let value, !outcome.keep(value) { abandoned(value) }
            finished.signal()
        }
        let (seconds, attoseconds) = limit.components
        let wait = Double(seconds) + Double(attoseconds) / 1e18
        guard finished.wait(timeout: .now() + wait) == .timedOut else { return outcome.value }
        // It may have ended between the timeout and here: then its value is still taken.
        if let value = outcome.giveUp() { return value }
        task.cancel()
        return nil
    }

    private final class Outcome<T: Sendable>: Sendable {
        private let state = Mutex<(value: T?, givenUp: Bool)>((nil, false))

        /// Keeps `value` unless the wait gave up first.
        func keep(_ value: T) -> Bool {
            state.withLock { state in
                guard !state.givenUp else { return false }
                state.value = value
                return true
            }
        }

        /// The value if there is one, else no later value is kept.
        func giveUp() -> T? {
            state.withLock { state in
                if state.value == nil { state.givenUp = true }
                return state.value
            }
        }

        var value: T? { state.withLock { $0.value } }
    }
}
