/// Profile G's replay service (ver10 replay wsdl) at `/onvif/replay_service`: where the
/// recording is replayed over RTSP (`/replay`, ONVIF Streaming's `onvif-replay`), and the
/// RTSP session timeout replay sessions get.
struct ReplayService: ONVIFService {
    /// What SetReplayConfiguration changes: the RTSP server's session timeout.
    let sessionTimeout: ReplaySessionTimeout

    static let preAuthOperations: Set<String> = ["GetServiceCapabilities"]

    /// Forward replay only; RTP over RTSP/TCP (and UDP) as the client chooses.
    static let capabilities =
        "<trp:Capabilities ReversePlayback=\"false\" SessionTimeoutRange=\"\(ReplaySessionTimeout.range.lowerBound) \(ReplaySessionTimeout.range.upperBound)\" RTP_RTSP_TCP=\"true\"/>"

    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let operation = request.operation
        let name = request.operationName
        switch name {
        case "GetServiceCapabilities":
            return "<trp:GetServiceCapabilitiesResponse>\(Self.capabilities)</trp:GetServiceCapabilitiesResponse>"
        case "GetReplayUri":
            try RecordingFacts.requireRecording(operation.child("RecordingToken")?.trimmedText)
            if operation.child("StreamSetup")?.child("Stream")?.trimmedText == "RTP-Multicast" {
                throw SOAPFault.invalidArgument("ter:InvalidStreamSetup", "multicast is not offered; ask for RTP-Unicast")
            }
            guard let uri = endpoint.replayURI else {
                throw SOAPFault.rtspOff
            }
            return "<trp:GetReplayUriResponse>" + XMLText.element("trp:Uri", uri) + "</trp:GetReplayUriResponse>"
        case "GetReplayConfiguration":
            return "<trp:GetReplayConfigurationResponse><trp:Configuration>"
                + XMLText.element("tt:SessionTimeout", XMLDuration.text(ms: Int64(sessionTimeout.seconds) * 1000))
                + "</trp:Configuration></trp:GetReplayConfigurationResponse>"
        case "SetReplayConfiguration":
            let given = operation.child("Configuration")?.child("SessionTimeout")?.trimmedText ?? ""
            guard let ms = XMLDuration.milliseconds(given), ms % 1000 == 0, ReplaySessionTimeout.range.contains(Int(ms / 1000)) else {
                throw SOAPFault.invalidArgument(
                    "ter:ConfigModify",
                    "SessionTimeout '\(given)' is not whole seconds from \(ReplaySessionTimeout.range.lowerBound) to \(ReplaySessionTimeout.range.upperBound)")
            }
            sessionTimeout.set(Int(ms / 1000))
            return "<trp:SetReplayConfigurationResponse/>"
        default:
            throw SOAPFault.actionNotSupported(name)
        }
    }
}

/// The RTSP session timeout (an RTSP client that sends nothing for this long loses its
/// session), as the live video's RTSP server applies it to new sessions.
struct ReplaySessionTimeout: Sendable {
    /// GStreamer's own default is 60 s; ten minutes bounds how long a vanished client's
    /// pipeline is kept.
    static let range = 1...600
    static let gstreamerDefault = 60

    let read: @Sendable () -> Int
    let set: @Sendable (Int) -> Void

    var seconds: Int {
        let value = read()
        return value > 0 ? value : Self.gstreamerDefault
    }

    init(read: @escaping @Sendable () -> Int, set: @escaping @Sendable (Int) -> Void) {
        self.read = read
        self.set = set
    }

    init(liveVideo: LiveVideo) {
        self.init(read: { liveVideo.sessionTimeoutSeconds }, set: { liveVideo.setSessionTimeout(seconds: $0) })
    }
}
