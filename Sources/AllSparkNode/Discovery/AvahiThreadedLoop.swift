import CAvahi
import Synchronization

/// avahi's event loop, running on a thread of its own (`avahi_threaded_poll_*`).
///
/// Callbacks of every avahi object created on this loop run on that thread with the loop's
/// lock held; any other thread must hold the lock (`withLock`) to touch those objects.
/// That lock is what serialises the sessions built on it.
final class AvahiThreadedLoop: @unchecked Sendable {
    // @unchecked: the poll is used only through avahi's thread-safe start/stop/lock calls.
    private let threadedPoll: OpaquePointer
    private let isRunning = Mutex(false)
    let poll: UnsafePointer<AvahiPoll>

    init() throws(DiscoveryError) {
        guard let threadedPoll = avahi_threaded_poll_new() else {
            throw .avahiFailure(operation: "avahi_threaded_poll_new", reason: "out of memory")
        }
        self.threadedPoll = threadedPoll
        poll = avahi_threaded_poll_get(threadedPoll)
    }

    /// Frees the poll and joins its thread: must not be the last release from a callback.
    deinit {
        avahi_threaded_poll_free(threadedPoll)
    }

    func start() throws(DiscoveryError) {
        let code = avahi_threaded_poll_start(threadedPoll)
        guard code >= 0 else {
            throw .avahiFailure(operation: "avahi_threaded_poll_start", reason: "cannot start the avahi thread")
        }
        isRunning.withLock { $0 = true }
    }

    /// Stops and joins the loop thread. Call it from outside the loop, without the lock.
    func stop() {
        let wasRunning = isRunning.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        let code = avahi_threaded_poll_stop(threadedPoll)
        assert(code >= 0, "avahi_threaded_poll_stop failed on a loop started here")
    }

    /// Runs `body` holding the loop's lock. Never call it from a callback (the lock is held there).
    func withLock<Result>(_ body: () -> Result) -> Result {
        avahi_threaded_poll_lock(threadedPoll)
        defer { avahi_threaded_poll_unlock(threadedPoll) }
        return body()
    }

    /// A one-shot timer on this loop; `nil` when avahi could not allocate it.
    /// Use it under the lock; re-arm it with `rearm`, free it with `free`.
    func makeTimer(
        afterMilliseconds milliseconds: UInt32, userdata: UnsafeMutableRawPointer,
        callback: AvahiTimeoutCallback
    ) -> OpaquePointer? {
        var deadline = timeval()
        avahi_elapse_time(&deadline, milliseconds, 0)
        return poll.pointee.timeout_new(poll, &deadline, callback, userdata)
    }

    func rearm(_ timer: OpaquePointer, afterMilliseconds milliseconds: UInt32) {
        var deadline = timeval()
        avahi_elapse_time(&deadline, milliseconds, 0)
        poll.pointee.timeout_update(timer, &deadline)
    }

    func free(_ timer: OpaquePointer) {
        poll.pointee.timeout_free(timer)
    }
}
