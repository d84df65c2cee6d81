import Foundation
import Synchronization

/// The encoder's packets for live viewers: a fixed ring of bytes and slots, allocated once.
/// The recording thread copies each packet in (overwriting the oldest, never waiting for a
/// reader); readers copy packets out by sequence number into buffers of their own. A reader
/// that was lapped learns it and resumes at the next keyframe still in the ring.
final class LivePacketRing: LivePacketTap, @unchecked Sendable {
    struct PacketInfo: Sendable, Equatable {
        let sequence: UInt64
        let session: Int
        let captureMs: Int64
        let durationMs: Int64
        let isKeyframe: Bool
        let byteCount: Int
    }

    enum ReadResult: Equatable {
        case packet(PacketInfo)
        /// Not published yet.
        case pending
        /// Overwritten; `resumeAt` is the oldest keyframe still held (or the next sequence).
        case lapped(resumeAt: UInt64)
    }

    private struct Slot {
        /// Bytes written to the ring before this packet, over its whole life (offset = position % capacity).
        var position = 0
        var info = PacketInfo(sequence: 0, session: 0, captureMs: 0, durationMs: 0, isKeyframe: false, byteCount: 0)
    }

    private struct State {
        var slots: [Slot]
        /// Sequence of the next packet to publish; packets [oldest, next) are held.
        var next: UInt64 = 1
        var oldest: UInt64 = 1
        /// Bytes written to the ring over its whole life, including the unused tails skipped at wrap-around.
        var writePosition = 0
        var session = 0
        var parameters: LiveStreamParameters?
        /// Set when a packet could not be held (larger than the ring): readers skip to a keyframe.
        var packetsTooLarge = 0
    }

    let byteCapacity: Int
    private let bytes: UnsafeMutableRawBufferPointer
    private let state: Mutex<State>
    /// Wakes the threads that read the ring (fragmenter, RTSP feeder) when a packet arrives.
    private let arrivals = NSCondition()

    /// 4 MiB holds 8 s at 4 Mbit/s (1080p30 of a lively scene), several keyframe intervals:
    /// what a reader that starts at the newest keyframe, or falls behind for a moment, needs.
    /// Each byte is resident once written, so more is memory for nothing (bench/README.md).
    init(byteCapacity: Int = 4 << 20, slotCount: Int = 512) {
        self.byteCapacity = byteCapacity
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCapacity, alignment: 16)
        state = Mutex(State(slots: Array(repeating: Slot(), count: slotCount)))
    }

    deinit { bytes.deallocate() }

    var parameters: LiveStreamParameters? { state.withLock { $0.parameters } }
    var nextSequence: UInt64 { state.withLock { $0.next } }

    func beginSession(width: Int, height: Int, fps: Double, extradata: UnsafeBufferPointer<UInt8>) {
        // Once per encoder session, not per packet: the one allocation here is allowed.
        let copied = Array(extradata)
        state.withLock { state in
            state.session += 1
            state.parameters = LiveStreamParameters(session: state.session, width: width, height: height, fps: fps, extradata: copied)
        }
        wakeReaders()
    }

    func publish(_ packet: UnsafeRawBufferPointer, captureMs: Int64, durationMs: Int64, isKeyframe: Bool) {
        let count = packet.count
        state.withLock { state in
            let sequence = state.next
            state.next += 1
            guard count <= byteCapacity, state.parameters != nil else {
                // Dropped for viewers only; they resume at the next keyframe.
                state.packetsTooLarge += 1
                state.oldest = state.next
                return
            }
            // A packet is never split: one that does not fit before the end starts at offset 0.
            let tail = byteCapacity - state.writePosition % byteCapacity
            if count > tail { state.writePosition += tail }
            let start = state.writePosition
            let end = start + count
            // Evict the held packets whose bytes this one overwrites, and the one whose slot it reuses.
            while state.oldest < sequence {
                let oldest = state.slots[Int(state.oldest % UInt64(state.slots.count))]
                let overwritten = oldest.position < end - byteCapacity
                let slotReused = sequence - state.oldest >= UInt64(state.slots.count)
                guard overwritten || slotReused else { break }
                state.oldest += 1
            }
            if count > 0 {
                bytes.baseAddress!.advanced(by: start % byteCapacity).copyMemory(from: packet.baseAddress!, byteCount: count)
            }
            state.slots[Int(sequence % UInt64(state.slots.count))] = Slot(
                position: start,
                info: PacketInfo(
                    sequence: sequence, session: state.session, captureMs: captureMs, durationMs: durationMs,
                    isKeyframe: isKeyframe, byteCount: count))
            state.writePosition = end
        }
        wakeReaders()
    }

    /// A reader's buffer grows in steps of this: it starts empty (a buffer of the largest
    /// packet there could be, zero-filled, was a resident MiB for each reader) and reaches
    /// the stream's largest packet in a few steps, after which a read allocates nothing.
    static let readerBufferStep = 64 << 10

    /// Copies packet `sequence` into `buffer` (grown only when a packet is larger than it).
    func read(_ sequence: UInt64, into buffer: inout [UInt8]) -> ReadResult {
        state.withLock { state in
            if sequence >= state.next { return .pending }
            if sequence < state.oldest { return .lapped(resumeAt: Self.firstKeyframe(from: state.oldest, in: state)) }
            let slot = state.slots[Int(sequence % UInt64(state.slots.count))]
            if buffer.count < slot.info.byteCount {
                let step = Self.readerBufferStep
                buffer = [UInt8](repeating: 0, count: (slot.info.byteCount + step - 1) / step * step)
            }
            buffer.withUnsafeMutableBytes { target in
                guard slot.info.byteCount > 0 else { return }
                target.baseAddress!.copyMemory(
                    from: bytes.baseAddress!.advanced(by: slot.position % byteCapacity), byteCount: slot.info.byteCount)
            }
            return .packet(slot.info)
        }
    }

    /// Where a new reader starts: the newest keyframe held (it is decodable on its own), or
    /// the next packet when none is held.
    func newestKeyframe() -> UInt64 {
        state.withLock { state in
            var sequence = state.next
            while sequence > state.oldest {
                sequence -= 1
                if state.slots[Int(sequence % UInt64(state.slots.count))].info.isKeyframe { return sequence }
            }
            return state.next
        }
    }

    private static func firstKeyframe(from start: UInt64, in state: State) -> UInt64 {
        var sequence = start
        while sequence < state.next {
            if state.slots[Int(sequence % UInt64(state.slots.count))].info.isKeyframe { return sequence }
            sequence += 1
        }
        return state.next
    }

    /// Blocks a reader thread until packet `wanted` exists, a session other than `session`
    /// starts, `isStopping` says so, or `timeoutMs` passes.
    func waitForPacket(_ wanted: UInt64, session: Int, timeoutMs: Int, isStopping: () -> Bool) {
        arrivals.lock()
        defer { arrivals.unlock() }
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMs) / 1000)
        while !isStopping(), state.withLock({ $0.next <= wanted && $0.session == session }) {
            if !arrivals.wait(until: deadline) { return }
        }
    }

    /// Makes `change` (a reader's stop) under the lock its wait checks `isStopping` under,
    /// then wakes the readers: none sleeps through it to its timeout.
    func wakeReaders(after change: () -> Void = {}) {
        arrivals.lock()
        change()
        arrivals.broadcast()
        arrivals.unlock()
    }
}
