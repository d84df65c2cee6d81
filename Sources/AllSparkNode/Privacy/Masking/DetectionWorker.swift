import Dispatch
import Foundation
import Synchronization

/// A frame lent to the detection thread. The lender promises not to write or free the
/// picture until `DetectionWorker` has returned this frame's result (the semaphores order
/// the two threads' accesses), which is why the pointers may cross threads.
struct DetectionJob: @unchecked Sendable {
    let frameNumber: Int
    let captureTimeMs: Int64
    let picture: YUV420Frame
    /// What to search; never nothing (a frame with nothing to search needs no job).
    let regions: SearchRegions
}

/// What detection found in one sampled frame; a failure means the frame must be treated as
/// all face (fail closed).
struct DetectionResult: Sendable {
    let frameNumber: Int
    let captureTimeMs: Int64
    /// What was searched.
    let regions: SearchRegions
    let boxes: [PixelRect]
    let failure: PrivacyError?
    let detectionMs: Double
}

/// Runs region detectors on a thread of its own, one frame at a time.
///
/// The detectors are built on that thread (they are not thread-safe and never leave it);
/// `init` waits for them and rethrows their error, so a missing cascade still stops the
/// node before it records. At most one job is in flight.
final class DetectionWorker: Sendable {
    private struct State {
        var job: DetectionJob?
        var result: DetectionResult?
        var stopping = false
    }

    private let state = Mutex(State())
    private let jobReady = DispatchSemaphore(value: 0)
    private let resultReady = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let busy = Atomic<Bool>(false)

    init(makeDetectors: @escaping @Sendable () throws -> [any RegionDetector]) throws {
        let setup = Mutex<Error?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            let detectors: [any RegionDetector]
            do {
                detectors = try makeDetectors()
            } catch {
                setup.withLock { $0 = error }
                ready.signal()
                exited.signal()
                return
            }
            ready.signal()
            serve(detectors)
            exited.signal()
        }
        thread.name = "allspark-detection"
        thread.stackSize = 8 << 20
        thread.start()
        ready.wait()
        if let error = setup.withLock({ $0 }) { throw error }
    }

    /// True from `submit` until its result has been taken.
    var isBusy: Bool { busy.load(ordering: .acquiring) }

    func submit(_ job: DetectionJob) {
        precondition(!isBusy, "one detection job at a time")
        busy.store(true, ordering: .releasing)
        state.withLock { $0.job = job }
        jobReady.signal()
    }

    /// The result of the job in flight if it is done; nil if it is not (or none is in flight).
    func takeResultIfDone() -> DetectionResult? {
        guard isBusy else { return nil }
        return waitForResult(milliseconds: 0)
    }

    /// Waits for the result of the job in flight.
    func waitForResult() -> DetectionResult {
        precondition(isBusy, "no detection job in flight")
        resultReady.wait()
        return takeResult()
    }

    /// Waits at most `milliseconds` for the result of the job in flight; nil if it is not
    /// done by then (the job stays in flight).
    func waitForResult(milliseconds: Int) -> DetectionResult? {
        precondition(isBusy, "no detection job in flight")
        guard resultReady.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return nil }
        return takeResult()
    }

    /// Ends the thread after its current job; waits for it.
    func stop() {
        state.withLock { $0.stopping = true }
        jobReady.signal()
        exited.wait()
    }

    private func takeResult() -> DetectionResult {
        let result = state.withLock { state in
            defer { state.result = nil }
            return state.result!
        }
        busy.store(false, ordering: .releasing)
        return result
    }

    private func serve(_ detectors: [any RegionDetector]) {
        let clock = ContinuousClock()
        var boxes: [PixelRect] = []
        while true {
            jobReady.wait()
            guard let job = state.withLock({ state in state.stopping ? nil : state.job }) else { return }
            let start = clock.now
            boxes.removeAll(keepingCapacity: true)
            var failure: PrivacyError?
            do {
                for detector in detectors {
                    if job.regions.isWholeFrame {
                        try detector.detect(in: job.picture, appendingTo: &boxes)
                    }
                    for index in 0..<job.regions.count {
                        let region = job.regions[index]
                        if let scale = region.scale {
                            try detector.detect(in: job.picture, within: region.rect, scale: scale, appendingTo: &boxes)
                        } else {
                            try detector.detect(in: job.picture, within: region.rect, appendingTo: &boxes)
                        }
                    }
                }
            } catch {
                failure = error
            }
            let elapsed = start.duration(to: clock.now).components
            let detectionMs = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
            let result = DetectionResult(
                frameNumber: job.frameNumber, captureTimeMs: job.captureTimeMs, regions: job.regions, boxes: boxes, failure: failure, detectionMs: detectionMs)
            state.withLock {
                $0.job = nil
                $0.result = result
            }
            resultReady.signal()
        }
    }
}
