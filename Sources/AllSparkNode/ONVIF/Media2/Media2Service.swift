/// ONVIF's second media service (ver20 media wsdl) at `/onvif/media2_service`: the same one
/// fixed profile as the ver10 service, in Media2's shapes (profiles whose configurations
/// come only when asked for by type, `VideoEncoder2Configuration`, a stream URI chosen by
/// transport name). VMSs that speak Media2 ask it before ver10. Configurations are read
/// only: setters, profile edits and anything else answer `ter:ActionNotSupported`.
/// SetSynchronizationPoint asks the recorder for a key frame.
struct Media2Service: ONVIFService {
    let video: ONVIFVideoSettings
    var requestKeyframe: @Sendable () -> Void = {}

    static let preAuthOperations: Set<String> = ["GetServiceCapabilities"]

    /// One profile of a video source and an encoder; unicast RTSP over UDP or TCP only.
    static let capabilities =
        "<tr2:Capabilities SnapshotUri=\"true\" Rotation=\"false\" VideoSourceMode=\"false\" OSD=\"false\" TemporaryOSDText=\"false\" Mask=\"false\" SourceMask=\"false\">"
        + "<tr2:ProfileCapabilities MaximumNumberOfProfiles=\"1\" ConfigurationsSupported=\"VideoSource VideoEncoder\"/>"
        + "<tr2:StreamingCapabilities RTSPStreaming=\"true\" RTPMulticast=\"false\" RTP_RTSP_TCP=\"true\" NonAggregateControl=\"false\" AutoStartMulticast=\"false\"/>"
        + "</tr2:Capabilities>"

    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let operation = request.operation
        let name = request.operationName
        switch name {
        case "GetServiceCapabilities":
            return "<tr2:GetServiceCapabilitiesResponse>\(Self.capabilities)</tr2:GetServiceCapabilitiesResponse>"
        case "GetProfiles":
            if let token = operation.child("Token")?.trimmedText { try MediaProfile.requireProfile(token) }
            let types = Set(operation.children.filter { $0.name == "Type" }.map(\.trimmedText))
            return "<tr2:GetProfilesResponse>\(Media2Configurations.profile(video, types: types))</tr2:GetProfilesResponse>"
        case "GetVideoSourceConfigurations":
            try requireTokens(operation, configuration: MediaProfile.sourceConfigurationToken)
            return "<tr2:\(name)Response>\(MediaProfile.sourceConfiguration(video, element: "tr2:Configurations"))</tr2:\(name)Response>"
        case "GetVideoEncoderConfigurations":
            try requireTokens(operation, configuration: MediaProfile.encoderConfigurationToken)
            return "<tr2:\(name)Response>\(Media2Configurations.encoder(video, element: "tr2:Configurations"))</tr2:\(name)Response>"
        case "GetVideoSourceConfigurationOptions":
            try requireTokens(operation, configuration: MediaProfile.sourceConfigurationToken)
            return "<tr2:\(name)Response>\(MediaProfile.sourceOptions(video, element: "tr2:Options"))</tr2:\(name)Response>"
        case "GetVideoEncoderConfigurationOptions":
            try requireTokens(operation, configuration: MediaProfile.encoderConfigurationToken)
            return "<tr2:\(name)Response>\(Media2Configurations.encoderOptions(video))</tr2:\(name)Response>"
        case "GetVideoEncoderInstances":
            try MediaProfile.require(operation.child("ConfigurationToken")?.trimmedText, is: MediaProfile.sourceConfigurationToken, "ter:NoConfig")
            return "<tr2:GetVideoEncoderInstancesResponse>\(Media2Configurations.encoderInstances)</tr2:GetVideoEncoderInstancesResponse>"
        case "GetAudioSourceConfigurations", "GetAudioEncoderConfigurations", "GetAudioOutputConfigurations",
            "GetAudioDecoderConfigurations", "GetMetadataConfigurations", "GetAnalyticsConfigurations", "GetOSDs", "GetMasks":
            return "<tr2:\(name)Response/>"
        case "GetStreamUri":
            return try streamURI(operation, at: endpoint)
        case "SetSynchronizationPoint":
            try MediaProfile.requireProfile(operation.child("ProfileToken")?.trimmedText)
            requestKeyframe()
            return "<tr2:SetSynchronizationPointResponse/>"
        case "GetSnapshotUri":
            try MediaProfile.requireProfile(operation.child("ProfileToken")?.trimmedText)
            return "<tr2:GetSnapshotUriResponse>" + XMLText.element("tr2:Uri", endpoint.snapshotURI) + "</tr2:GetSnapshotUriResponse>"
        default:
            throw SOAPFault.actionNotSupported(name)
        }
    }

    /// Media2 names the transport, not the stream: `RtspUnicast` (RTP over UDP) and `RTSP`
    /// (RTP interleaved over RTSP/TCP) are the same URI, the client choosing in its SETUP.
    /// Multicast, RTSPS and RTSP tunnelled over HTTP are not served.
    func streamURI(_ operation: XMLNode, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        try MediaProfile.requireProfile(operation.child("ProfileToken")?.trimmedText)
        let transport = operation.child("Protocol")?.trimmedText ?? ""
        guard Self.servedTransports.contains(transport) else {
            throw SOAPFault.invalidArgument(
                "ter:InvalidStreamSetup", "transport '\(transport)' is not offered; ask for \(Self.servedTransports.sorted().joined(separator: " or "))")
        }
        guard let uri = endpoint.streamURI else {
            throw SOAPFault.rtspOff
        }
        return "<tr2:GetStreamUriResponse>" + XMLText.element("tr2:Uri", uri) + "</tr2:GetStreamUriResponse>"
    }

    static let servedTransports: Set<String> = ["RtspUnicast", "RTSP"]

    /// Media2's `GetConfiguration` request: a configuration token and a profile token, each
    /// optional; either, when given, must be the node's.
    private func requireTokens(_ operation: XMLNode, configuration: String) throws(SOAPFault) {
        if let token = operation.child("ConfigurationToken")?.trimmedText {
            try MediaProfile.require(token, is: configuration, "ter:NoConfig")
        }
        if let token = operation.child("ProfileToken")?.trimmedText { try MediaProfile.requireProfile(token) }
    }
}
