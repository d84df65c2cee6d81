import Dispatch

/// A task executor on a concurrent dispatch queue: tasks that prefer it run on dispatch's
/// threads, whatever keeps Swift's cooperative pool busy.
final class DispatchTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
