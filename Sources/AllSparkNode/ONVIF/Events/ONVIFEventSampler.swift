import ServiceLifecycle

/// Reads the node's event properties every `interval` (motion from the latest snapshot
/// copy, the rest as health reads them) and hands them to the subscriptions, which queue
/// what changed; ends subscriptions past their time.
struct ONVIFEventSampler: Service {
    let services: NodeServices
    var interval: Duration = .milliseconds(500)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var motion = MotionSampler()
            while !Task.isCancelled {
                let nowMs = WallClock.nowMs()
                let moving = motion.update(services.recorder.latestSnapshot, nowMs: nowMs)
                services.onvifEvents.publish(NodeEventState.read(services: services, motion: moving), nowMs: nowMs)
                services.onvifEvents.expire(nowMs: nowMs)
                guard (try? await Task.sleep(for: interval)) != nil else { return }
            }
        }
    }
}
