import Foundation
import Synchronization

/// Carries the ring's packets to the RTSP server on a thread of its own, putting the
/// session's SPS/PPS in front of every keyframe (the encoder keeps them out of the stream
/// for MP4), so every client can start at any keyframe.
final class RTSPFeeder: Sendable {
    private let ring: LivePacketRing
    private let server: RTSPServer
    private let stopRequested = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)
    private let done = NSCondition()

    init(ring: LivePacketRing, server: RTSPServer) {
        self.ring = ring
        self.server = server
    }

    func start() {
        let thread = Thread { self.run() }
        thread.name = "allspark-live-rtsp"
        thread.start()
    }

    /// Stops the thread and waits for it, so the server can be freed after.
    func stop() {
        // Woken, not left to find out at its wait's timeout: a node stops half a second sooner.
        ring.wakeReaders { stopRequested.store(true, ordering: .releasing) }
        done.lock()
        while !finished.withLock({ $0 }) { done.wait() }
        done.unlock()
    }

    private func run() {
        defer {
            done.lock()
            finished.withLock { $0 = true }
            done.broadcast()
            done.unlock()
        }
        // Both grow to the largest packet (and its headers) and are reused from then on.
        var packet: [UInt8] = []
        var accessUnit = [UInt8]()
        var wanted = ring.nextSequence
        var session = 0
        var headers: [UInt8] = []
        while !stopRequested.load(ordering: .acquiring) {
            if let parameters = ring.parameters, parameters.session != session {
                session = parameters.session
                headers = parameters.extradata
            }
            switch ring.read(wanted, into: &packet) {
            case .pending:
                ring.waitForPacket(wanted, session: session, timeoutMs: 500) { stopRequested.load(ordering: .acquiring) }
            case .lapped(let resumeAt):
                wanted = resumeAt
            case .packet(let info):
                wanted = info.sequence + 1
                guard info.session == session else { continue }
                accessUnit.removeAll(keepingCapacity: true)
                if info.isKeyframe { accessUnit.append(contentsOf: headers) }
                accessUnit.append(contentsOf: packet[0..<info.byteCount])
                accessUnit.withUnsafeBufferPointer { server.push($0, captureMs: info.captureMs, isKeyframe: info.isKeyframe) }
            }
        }
    }
}
