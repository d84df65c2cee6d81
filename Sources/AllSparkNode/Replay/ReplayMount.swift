import CFFmpeg
import CRTSPShim

/// The seam between the RTSP server's replay mount (CRTSPShim's rtsp_replay.h) and the
/// store: each client's media gets a `ReplaySource`, which GStreamer drives through the
/// callbacks here. Kept alive by the RTSP server for as long as it serves.
final class ReplayMount: Sendable {
    static let path = "/replay"
    let footage: ReplayFootage
    /// Clients whose replay media exists now (viewers), and the access-unit bytes sent to
    /// them: the `replay` kind of `/api/status` `live` and `/metrics`' live viewers.
    let counters: LiveCounters.PerKind

    init(footage: ReplayFootage, counters: LiveCounters.PerKind) {
        self.footage = footage
        self.counters = counters
    }

    /// One client's media: its source, and the counters it reports to.
    final class Client {
        let source: ReplaySource
        let counters: LiveCounters.PerKind

        init(source: ReplaySource, counters: LiveCounters.PerKind) {
            self.source = source
            self.counters = counters
            counters.viewers.add(1, ordering: .relaxed)
        }

        deinit { counters.viewers.subtract(1, ordering: .relaxed) }

        static func from(_ pointer: UnsafeMutableRawPointer?) -> Client {
            Unmanaged<Client>.fromOpaque(pointer!).takeUnretainedValue()
        }
    }

    /// The C callbacks, with this mount as their context (unretained: the server keeps it).
    var callbacks: allspark_replay_callbacks {
        allspark_replay_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            open: { context in
                let mount = Unmanaged<ReplayMount>.fromOpaque(context!).takeUnretainedValue()
                return Unmanaged.passRetained(Client(source: ReplaySource(footage: mount.footage), counters: mount.counters)).toOpaque()
            },
            resolve: { source, start, stop, rate, keyFramesOnly in
                let replay = Client.from(source).source
                let stopNs = stop == UInt64.max ? nil : stop
                return replay.resolve(startNs: start, stopNs: stopNs, rate: rate, keyFramesOnly: keyFramesOnly != 0) ?? UInt64.max
            },
            seek: { source, position in
                Client.from(source).source.seek(to: position)
            },
            fill: { source, output in
                let client = Client.from(source)
                let replay = client.source
                guard let frame = replay.nextFrame() else {
                    allspark_replay_end(output)
                    return
                }
                defer { av_packet_unref(frame.packet) }
                let section = replay.section(of: frame)
                client.counters.bytesSent.add(Int(frame.packet.pointee.size), ordering: .relaxed)
                allspark_replay_push(
                    output, frame.packet.pointee.data, Int(frame.packet.pointee.size), frame.ns, section.startNs, section.baseNs,
                    frame.isKeyframe ? 1 : 0, section.discont ? 1 : 0)
            },
            close: { source in
                Unmanaged<Client>.fromOpaque(source!).release()
            })
    }
}
