import Synchronization

/// What a conversation writes to its peer, one item at a time, so an upload's binary
/// message is never interleaved with another message.
enum OutboundItem: Sendable {
    case text(String)
    case upload(UploadJob)
}

/// The queue in front of a conversation's single writer. Sending never blocks, so the
/// recording thread can announce chunks to every peer.
public final class Outbox: Sendable {
    let items: AsyncStream<OutboundItem>
    private let continuation: AsyncStream<OutboundItem>.Continuation

    init() {
        // Bounded: a peer that stops reading loses old events rather than growing memory.
        (items, continuation) = AsyncStream.makeStream(of: OutboundItem.self, bufferingPolicy: .bufferingNewest(1024))
    }

    public func send(_ text: String) { continuation.yield(.text(text)) }
    func send(_ job: UploadJob) { continuation.yield(.upload(job)) }
    func close() { continuation.finish() }
}

/// The outbox of the conversation that is open now, if any (a connection comes and goes).
final class CurrentOutbox: Sendable {
    private let slot = Mutex<Outbox?>(nil)
    var outbox: Outbox? { slot.withLock { $0 } }
    func set(_ outbox: Outbox?) { slot.withLock { $0 = outbox } }
}
