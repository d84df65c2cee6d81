import CRTSPShim

/// GStreamer's RTSP server serving rtsp://host:port/live (through the CRTSPShim C API), fed
/// with the recorder's access units. With a password, clients must authenticate (Basic or
/// Digest); a refused client gets 401 and nothing else.
final class RTSPServer: @unchecked Sendable {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Each client's queue of access units; a client further behind drops to its next keyframe.
    static let clientQueueBytes = 4 << 20
    static let user = "allspark"
    private let server: OpaquePointer

    /// - Parameter onvifUser: a second user name taking the same password (ONVIF's, which
    ///   VMSs put in the stream URI); nil: `allspark` only.
    /// - Parameter limiter: the node's failed-attempt limiter: wrong credentials count against
    ///   the client's address, and an address out of attempts is refused unheard.
    /// - Parameter replay: serves ONVIF replay of the store at `/replay` (nil: not served).
    init(host: String, port: Int, password: String?, onvifUser: String? = nil, limiter: AccessPolicy? = nil, replay: ReplayMount? = nil) throws {
        self.limiter = limiter
        self.replay = replay
        var message = [CChar](repeating: 0, count: 512)
        let context = limiter.map { Unmanaged.passUnretained($0).toOpaque() }
        func start(_ replayCallbacks: UnsafePointer<allspark_replay_callbacks>?) -> OpaquePointer? {
            allspark_rtsp_start(
                host, Int32(port), Self.user, onvifUser, password, limiter == nil ? nil : Self.judge, context, Self.clientQueueBytes,
                replayCallbacks, &message, message.count)
        }
        var replayCallbacks = replay?.callbacks
        let started = replayCallbacks == nil ? start(nil) : withUnsafePointer(to: &replayCallbacks!) { start($0) }
        guard let started else {
            throw StartError(description: String(nulTerminated: message))
        }
        server = started
    }

    /// Kept for as long as the server (its judge holds an unretained pointer to it).
    private let limiter: AccessPolicy?
    /// Kept for as long as the server (the replay callbacks' context).
    private let replay: ReplayMount?

    /// The RTSP session timeout new sessions get (ONVIF's replay configuration).
    func setSessionTimeout(seconds: Int) { allspark_rtsp_set_session_timeout(server, UInt32(clamping: seconds)) }

    deinit { allspark_rtsp_stop(server) }

    private static let judge: allspark_rtsp_judge = { context, address, failed in
        guard let context, let address else { return 0 }
        let policy = Unmanaged<AccessPolicy>.fromOpaque(context).takeUnretainedValue()
        let client = String(cString: address)
        if failed != 0 {
            policy.recordFailure(from: client)
            return 0
        }
        return policy.isThrottled(client) ? 1 : 0
    }

    /// One access unit in Annex B form (SPS/PPS in front of a keyframe); never blocks.
    func push(_ accessUnit: UnsafeBufferPointer<UInt8>, captureMs: Int64, isKeyframe: Bool) {
        allspark_rtsp_push(server, accessUnit.baseAddress, accessUnit.count, UInt64(max(0, captureMs)) * 1_000_000, isKeyframe ? 1 : 0)
    }

    /// A rotated token: the old password stops working and its clients are closed.
    func setPassword(_ password: String) { allspark_rtsp_set_password(server, password) }

    var counters: allspark_rtsp_counters {
        var counters = allspark_rtsp_counters()
        allspark_rtsp_read_counters(server, &counters)
        return counters
    }
}
