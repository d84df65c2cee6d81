import Synchronization

/// The node's event properties and the PullPoint subscriptions that follow them. A
/// subscription is told every property's state when it begins and each change after; its
/// queue is bounded (the oldest messages go first), their number too, and one not renewed
/// by its termination time is gone. Subscription ids are random: the subscription's
/// address is handed only to the client that made it.
final class PullPointSubscriptions: Sendable {
    static let maximumCount = 16
    static let maximumQueued = 500
    /// What a subscription without InitialTerminationTime gets, and the longest one may ask.
    static let defaultLifetimeMs: Int64 = 60_000
    static let maximumLifetimeMs: Int64 = 3_600_000

    private struct Subscription {
        var terminationMs: Int64
        /// The topics it asked for (nil: all).
        let filter: TopicFilter?
        var queue: [EventMessage] = []
    }

    private struct State {
        var current: [EventTopic: (on: Bool, sinceMs: Int64)] = [:]
        var subscriptions: [String: Subscription] = [:]
    }

    private let state = Mutex(State())
    /// Bumped whenever a queue gains messages or a subscription ends: a pull waits on it.
    let updates = LiveUpdateSignal()

    enum Refusal: Error, Equatable {
        case tooMany
        case unknown
    }

    /// Takes the node's state at `nowMs`: each property that changed is queued for every subscription.
    func publish(_ latest: NodeEventState, nowMs: Int64) {
        let changed = state.withLock { state -> Bool in
            var changed = false
            for topic in EventTopic.allCases {
                guard let on = latest.values[topic] else { continue }
                let previous = state.current[topic]
                guard previous?.on != on else { continue }
                state.current[topic] = (on, nowMs)
                // The first reading is each subscription's Initialized, not a change.
                guard previous != nil else { continue }
                let message = EventMessage(topic: topic, on: on, utcMs: nowMs, operation: .changed)
                for id in state.subscriptions.keys { Self.enqueue(message, to: &state.subscriptions[id]!) }
                changed = true
            }
            return changed
        }
        if changed { updates.bump() }
    }

    /// A new subscription for `lifetimeMs` (capped); its queue starts with every property's state.
    func subscribe(lifetimeMs: Int64?, filter: TopicFilter? = nil, nowMs: Int64) throws(Refusal) -> (id: String, terminationMs: Int64) {
        let terminationMs = nowMs + Self.lifetime(lifetimeMs)
        let id = Self.newId()
        try state.withLock { state throws(Refusal) in
            Self.dropExpired(&state, nowMs: nowMs)
            guard state.subscriptions.count < Self.maximumCount else { throw .tooMany }
            var subscription = Subscription(terminationMs: terminationMs, filter: filter)
            for message in Self.initialized(state.current, nowMs: nowMs) { Self.enqueue(message, to: &subscription) }
            state.subscriptions[id] = subscription
        }
        return (id, terminationMs)
    }

    /// Up to `limit` queued messages, and the subscription's termination time.
    func pull(_ id: String, limit: Int, nowMs: Int64) throws(Refusal) -> (messages: [EventMessage], terminationMs: Int64) {
        try state.withLock { state throws(Refusal) in
            Self.dropExpired(&state, nowMs: nowMs)
            guard var subscription = state.subscriptions[id] else { throw .unknown }
            let taken = Array(subscription.queue.prefix(max(1, limit)))
            subscription.queue.removeFirst(taken.count)
            state.subscriptions[id] = subscription
            return (messages: taken, terminationMs: subscription.terminationMs)
        }
    }

    func renew(_ id: String, lifetimeMs: Int64?, nowMs: Int64) throws(Refusal) -> Int64 {
        try state.withLock { state throws(Refusal) in
            Self.dropExpired(&state, nowMs: nowMs)
            guard state.subscriptions[id] != nil else { throw .unknown }
            let terminationMs = nowMs + Self.lifetime(lifetimeMs)
            state.subscriptions[id]!.terminationMs = terminationMs
            return terminationMs
        }
    }

    func unsubscribe(_ id: String) throws(Refusal) {
        try state.withLock { state throws(Refusal) in
            guard state.subscriptions.removeValue(forKey: id) != nil else { throw .unknown }
        }
        updates.bump()
    }

    /// SetSynchronizationPoint: every property's state queued again, as `Initialized`.
    func synchronize(_ id: String, nowMs: Int64) throws(Refusal) {
        try state.withLock { state throws(Refusal) in
            Self.dropExpired(&state, nowMs: nowMs)
            guard state.subscriptions[id] != nil else { throw .unknown }
            for message in Self.initialized(state.current, nowMs: nowMs) { Self.enqueue(message, to: &state.subscriptions[id]!) }
        }
        updates.bump()
    }

    /// Ends the subscriptions past their termination time; wakes pulls waiting on them.
    func expire(nowMs: Int64) {
        let ended = state.withLock { state in Self.dropExpired(&state, nowMs: nowMs) }
        if ended > 0 { updates.bump() }
    }

    var count: Int { state.withLock { $0.subscriptions.count } }

    private static func lifetime(_ asked: Int64?) -> Int64 {
        min(max(asked ?? defaultLifetimeMs, 1000), maximumLifetimeMs)
    }

    @discardableResult
    private static func dropExpired(_ state: inout State, nowMs: Int64) -> Int {
        let before = state.subscriptions.count
        state.subscriptions = state.subscriptions.filter { $0.value.terminationMs > nowMs }
        return before - state.subscriptions.count
    }

    private static func initialized(_ current: [EventTopic: (on: Bool, sinceMs: Int64)], nowMs: Int64) -> [EventMessage] {
        EventTopic.allCases.compactMap { topic in
            current[topic].map { EventMessage(topic: topic, on: $0.on, utcMs: nowMs, operation: .initialized) }
        }
    }

    private static func enqueue(_ message: EventMessage, to subscription: inout Subscription) {
        guard subscription.filter?.matches(message.topic) ?? true else { return }
        if subscription.queue.count >= maximumQueued { subscription.queue.removeFirst(subscription.queue.count - maximumQueued + 1) }
        subscription.queue.append(message)
    }

    private static func newId() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
    }
}
