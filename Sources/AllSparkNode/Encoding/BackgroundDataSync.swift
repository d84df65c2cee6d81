import Foundation

/// Runs `fdatasync` on one file on a thread of its own, so the recording thread asks for
/// durability and goes on encoding: it waited 1.5 ms a fragment here (15 ms at worst, 4.5%
/// of a recording's wall time; bench/history 26), and far longer on an SD card.
///
/// Requests are numbered. One `fdatasync` covers every request made before it started, so
/// requests that pile up behind a slow disk are served by one call. The first failure is
/// kept and reported to the owner from then on.
final class BackgroundDataSync: @unchecked Sendable {
    private let descriptor: Int32
    /// Guards every property below it.
    private let condition = NSCondition()
    private var requested: UInt64 = 0
    private var completed: UInt64 = 0
    private var failure: Int32 = 0
    private var stopping = false
    private var finished = false

    /// Starts the thread. `descriptor` must stay open until `stop()` returns.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        let thread = Thread { [self] in run() }
        thread.name = "allspark-datasync"
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// Asks for everything written to the file so far to be made durable; returns the
    /// request's number at once.
    func request() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        requested += 1
        condition.signal()
        return requested
    }

    /// The newest request done, and the errno of the first failed sync (0: none).
    func progress() -> (completed: UInt64, failure: Int32) {
        condition.lock()
        defer { condition.unlock() }
        return (completed, failure)
    }

    /// Whether a request made is not done yet.
    var pending: Bool {
        condition.lock()
        defer { condition.unlock() }
        return completed < requested
    }

    /// Waits until every request made so far is done; returns the first failure's errno (0: none).
    func waitForAll() -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while completed < requested { condition.wait() }
        return failure
    }

    /// Serves the requests already made, then ends the thread and waits for it.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
    }

    private func run() {
        condition.lock()
        defer {
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        while true {
            while completed == requested && !stopping { condition.wait() }
            if completed == requested { return }
            let covered = requested
            condition.unlock()
            let result = fdatasync(descriptor) == 0 ? 0 : errno
            condition.lock()
            completed = covered
            if failure == 0 { failure = result }
            condition.broadcast()
        }
    }
}
