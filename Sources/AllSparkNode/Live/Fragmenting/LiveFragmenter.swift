import Foundation
import Logging
import NIOCore
import Synchronization

/// Turns the ring's packets into fMP4 on a thread of its own (libavformat calls block and
/// allocate, which the recording thread must not do): one fragment per frame into the feed
/// that MSE viewers read, and into the HLS parts.
final class LiveFragmenter: Sendable {
    private let ring: LivePacketRing
    private let feed: LiveFragmentFeed
    private let playlist: LiveHLSPlaylist
    private let counters: LiveCounters
    private let logger: Logger
    private let stopRequested = Atomic<Bool>(false)

    init(ring: LivePacketRing, feed: LiveFragmentFeed, playlist: LiveHLSPlaylist, counters: LiveCounters, logger: Logger) {
        self.ring = ring
        self.feed = feed
        self.playlist = playlist
        self.counters = counters
        self.logger = logger
    }

    func start() {
        let thread = Thread { self.run() }
        thread.name = "allspark-live-fmp4"
        thread.start()
    }

    func stop() { ring.wakeReaders { stopRequested.store(true, ordering: .releasing) } }

    private func run() {
        var buffer: [UInt8] = []  // grown by the ring to the largest packet
        var muxer: MemoryFragmentMuxer?
        var session = 0
        var sessionOriginMs: Int64 = 0
        var lastPtsMs: Int64 = -1
        var wanted = ring.nextSequence
        var needsKeyframe = true
        while !stopRequested.load(ordering: .acquiring) {
            if let parameters = ring.parameters, parameters.session != session {
                session = parameters.session
                muxer = nil
                needsKeyframe = true
                do {
                    let opened = try MemoryFragmentMuxer(parameters: parameters)
                    let start = LiveSessionStart(
                        parameters: parameters, initializationSegment: opened.initializationSegment,
                        codecs: H264CodecString.from(extradata: parameters.extradata) ?? "avc1.640028")
                    feed.begin(start)
                    playlist.begin(start)
                    muxer = opened
                    lastPtsMs = -1
                } catch {
                    logger.error("live video: cannot start the fMP4 muxer: \(error); live fMP4 and HLS wait for the next encoder session")
                }
            }
            switch ring.read(wanted, into: &buffer) {
            case .pending:
                ring.waitForPacket(wanted, session: session, timeoutMs: 500) { stopRequested.load(ordering: .acquiring) }
            case .lapped(let resumeAt):
                // Only when this thread could not keep up: viewers see a jump to a keyframe.
                counters.fragmenterSkips.add(1, ordering: .relaxed)
                wanted = resumeAt
                needsKeyframe = true
            case .packet(let info):
                wanted = info.sequence + 1
                guard info.session == session, let muxer else { continue }
                if needsKeyframe && !info.isKeyframe { continue }
                needsKeyframe = false
                if lastPtsMs < 0 { sessionOriginMs = info.captureMs }
                let ptsMs = max(info.captureMs - sessionOriginMs, lastPtsMs + 1)
                lastPtsMs = ptsMs
                do {
                    let bytes = try buffer.withUnsafeBufferPointer { all in
                        try muxer.fragment(
                            of: UnsafeBufferPointer(rebasing: all[0..<info.byteCount]), ptsMs: ptsMs, durationMs: info.durationMs,
                            isKeyframe: info.isKeyframe, captureMs: info.captureMs)
                    }
                    feed.append(session: session, captureMs: info.captureMs, durationMs: info.durationMs, isKeyframe: info.isKeyframe, mp4: bytes)
                    playlist.append(captureMs: info.captureMs, durationMs: info.durationMs, isKeyframe: info.isKeyframe, mp4: bytes)
                } catch {
                    logger.error("live video: muxing a frame failed: \(error); resuming at the next keyframe")
                    needsKeyframe = true
                }
            }
        }
    }
}
