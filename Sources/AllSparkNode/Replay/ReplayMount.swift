import CFFmpeg
import CRTSPShim

/// The seam between the RTSP server's replay mount (CRTSPShim's rtsp_replay.h) and the
/// store: each client's media gets a `ReplaySource`, which GStreamer drives through the
/// callbacks here. Kept alive by the RTSP server for as long as it serves.
final class ReplayMount: Sendable {
    static let path = "/replay"
    let footage: ReplayFootage

    init(footage: ReplayFootage) {
        self.footage = footage
    }

    /// The C callbacks, with this mount as their context (unretained: the server keeps it).
    var callbacks: allspark_replay_callbacks {
        allspark_replay_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            open: { context in
                let mount = Unmanaged<ReplayMount>.fromOpaque(context!).takeUnretainedValue()
                return Unmanaged.passRetained(ReplaySource(footage: mount.footage)).toOpaque()
            },
            resolve: { source, start, stop, rate, keyFramesOnly in
                let replay = Unmanaged<ReplaySource>.fromOpaque(source!).takeUnretainedValue()
                let stopNs = stop == UInt64.max ? nil : stop
                return replay.resolve(startNs: start, stopNs: stopNs, rate: rate, keyFramesOnly: keyFramesOnly != 0) ?? UInt64.max
            },
            seek: { source, position in
                Unmanaged<ReplaySource>.fromOpaque(source!).takeUnretainedValue().seek(to: position)
            },
            fill: { source, output in
                let replay = Unmanaged<ReplaySource>.fromOpaque(source!).takeUnretainedValue()
                guard let frame = replay.nextFrame() else {
                    allspark_replay_end(output)
                    return
                }
                defer { av_packet_unref(frame.packet) }
                let section = replay.section(of: frame)
                allspark_replay_push(
                    output, frame.packet.pointee.data, Int(frame.packet.pointee.size), frame.ns, section.startNs, section.baseNs,
                    frame.isKeyframe ? 1 : 0, section.discont ? 1 : 0)
            },
            close: { source in
                Unmanaged<ReplaySource>.fromOpaque(source!).release()
            })
    }
}
