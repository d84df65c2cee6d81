/// ONVIF's media service (ver10 media wsdl) at `/onvif/media_service`: one fixed profile,
/// the camera's masked H.264 stream as the recorder makes it, its RTSP URI and a snapshot
/// URI. Configurations are read only: the setters answer `ter:ActionNotSupported`.
/// SetSynchronizationPoint asks the recorder for a key frame.
struct MediaService: ONVIFService {
    let video: ONVIFVideoSettings
    var requestKeyframe: @Sendable () -> Void = {}

    static let preAuthOperations: Set<String> = ["GetServiceCapabilities"]

    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let operation = request.operation
        let name = request.operationName
        switch name {
        case "GetServiceCapabilities":
            return "<trt:GetServiceCapabilitiesResponse>\(DeviceCapabilities.mediaServiceCapabilities)</trt:GetServiceCapabilitiesResponse>"
        case "GetProfiles":
            return "<trt:GetProfilesResponse>\(MediaProfile.profile(video, element: "trt:Profiles"))</trt:GetProfilesResponse>"
        case "GetProfile":
            try MediaProfile.requireProfile(operation.child("ProfileToken")?.trimmedText)
            return "<trt:GetProfileResponse>\(MediaProfile.profile(video, element: "trt:Profile"))</trt:GetProfileResponse>"
        case "GetVideoSources":
            return "<trt:GetVideoSourcesResponse>\(MediaProfile.videoSource(video))</trt:GetVideoSourcesResponse>"
        case "GetVideoSourceConfigurations":
            return "<trt:GetVideoSourceConfigurationsResponse>\(MediaProfile.sourceConfiguration(video, element: "trt:Configurations"))</trt:GetVideoSourceConfigurationsResponse>"
        case "GetVideoSourceConfiguration", "GetCompatibleVideoSourceConfigurations":
            if name == "GetVideoSourceConfiguration" {
                try MediaProfile.require(operation.child("ConfigurationToken")?.trimmedText, is: MediaProfile.sourceConfigurationToken, "ter:NoConfig")
                return "<trt:GetVideoSourceConfigurationResponse>\(MediaProfile.sourceConfiguration(video, element: "trt:Configuration"))</trt:GetVideoSourceConfigurationResponse>"
            }
            return "<trt:\(name)Response>\(MediaProfile.sourceConfiguration(video, element: "trt:Configurations"))</trt:\(name)Response>"
        case "GetVideoEncoderConfigurations", "GetCompatibleVideoEncoderConfigurations":
            return "<trt:\(name)Response>\(MediaProfile.encoderConfiguration(video, element: "trt:Configurations"))</trt:\(name)Response>"
        case "GetVideoEncoderConfiguration":
            try MediaProfile.require(operation.child("ConfigurationToken")?.trimmedText, is: MediaProfile.encoderConfigurationToken, "ter:NoConfig")
            return "<trt:GetVideoEncoderConfigurationResponse>\(MediaProfile.encoderConfiguration(video, element: "trt:Configuration"))</trt:GetVideoEncoderConfigurationResponse>"
        case "GetVideoEncoderConfigurationOptions":
            return "<trt:GetVideoEncoderConfigurationOptionsResponse>\(MediaProfile.encoderOptions(video))</trt:GetVideoEncoderConfigurationOptionsResponse>"
        case "GetVideoSourceConfigurationOptions":
            return "<trt:GetVideoSourceConfigurationOptionsResponse>\(MediaProfile.sourceOptions(video))</trt:GetVideoSourceConfigurationOptionsResponse>"
        case "GetAudioSources", "GetAudioOutputs", "GetAudioSourceConfigurations", "GetAudioEncoderConfigurations",
            "GetVideoAnalyticsConfigurations", "GetMetadataConfigurations", "GetOSDs":
            return "<trt:\(name)Response/>"
        case "GetStreamUri":
            return try streamURI(operation, at: endpoint)
        case "SetSynchronizationPoint":
            try MediaProfile.requireProfile(operation.child("ProfileToken")?.trimmedText)
            requestKeyframe()
            return "<trt:SetSynchronizationPointResponse/>"
        case "GetSnapshotUri":
            try MediaProfile.requireProfile(operation.child("ProfileToken")?.trimmedText)
            return "<trt:GetSnapshotUriResponse>\(Self.mediaURI(endpoint.snapshotURI))</trt:GetSnapshotUriResponse>"
        default:
            throw SOAPFault.actionNotSupported(name)
        }
    }

    /// The live stream over RTSP (unicast; RTP over RTSP/TCP, UDP or HTTP as the client
    /// chooses in its RTSP SETUP). Multicast is not served.
    func streamURI(_ operation: XMLNode, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        try MediaProfile.requireProfile(operation.child("ProfileToken")?.trimmedText)
        if operation.child("StreamSetup")?.child("Stream")?.trimmedText == "RTP-Multicast" {
            throw SOAPFault.invalidArgument("ter:InvalidStreamSetup", "multicast is not offered; ask for RTP-Unicast")
        }
        guard let uri = endpoint.streamURI else {
            throw SOAPFault.rtspOff
        }
        return "<trt:GetStreamUriResponse>\(Self.mediaURI(uri))</trt:GetStreamUriResponse>"
    }

    static func mediaURI(_ uri: String) -> String {
        "<trt:MediaUri>" + XMLText.element("tt:Uri", uri)
            + "<tt:InvalidAfterConnect>false</tt:InvalidAfterConnect><tt:InvalidAfterReboot>false</tt:InvalidAfterReboot><tt:Timeout>PT0S</tt:Timeout></trt:MediaUri>"
    }
}
