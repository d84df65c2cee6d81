/// One notification: a topic's state at a moment, as ONVIF's `tt:Message` carries it.
struct EventMessage: Sendable, Equatable {
    enum Operation: String, Sendable {
        /// The state when a subscription began (or a synchronization point was asked).
        case initialized = "Initialized"
        case changed = "Changed"
    }

    let topic: EventTopic
    let on: Bool
    let utcMs: Int64
    let operation: Operation
}
