/// GetCapabilities (the old, per-category form every client still asks first), GetServices
/// and the services' own capabilities: what the node offers and where.
enum DeviceCapabilities {
    static let deviceServiceCapabilities =
        "<tds:Capabilities>"
        + "<tds:Network IPFilter=\"false\" ZeroConfiguration=\"false\" IPVersion6=\"false\" DynDNS=\"false\" Dot11Configuration=\"false\" HostnameFromDHCP=\"false\" NTP=\"0\"/>"
        + "<tds:Security TLS1.0=\"false\" TLS1.1=\"false\" TLS1.2=\"false\" OnboardKeyGeneration=\"false\" AccessPolicyConfig=\"false\" DefaultAccessPolicy=\"false\" Dot1X=\"false\" RemoteUserHandling=\"false\" X.509Token=\"false\" SAMLToken=\"false\" KerberosToken=\"false\" UsernameToken=\"true\" HttpDigest=\"false\" RELToken=\"false\"/>"
        + "<tds:System DiscoveryResolve=\"false\" DiscoveryBye=\"true\" RemoteDiscovery=\"false\" SystemBackup=\"false\" SystemLogging=\"false\" FirmwareUpgrade=\"false\" HttpFirmwareUpgrade=\"false\" HttpSystemBackup=\"false\" HttpSystemLogging=\"false\" HttpSupportInformation=\"false\"/>"
        + "</tds:Capabilities>"

    static let mediaServiceCapabilities =
        "<trt:Capabilities SnapshotUri=\"true\" Rotation=\"false\" VideoSourceMode=\"false\" OSD=\"false\">"
        + "<trt:ProfileCapabilities MaximumNumberOfProfiles=\"1\"/>"
        + "<trt:StreamingCapabilities RTPMulticast=\"false\" RTP_TCP=\"true\" RTP_RTSP_TCP=\"true\" NonAggregateControl=\"false\" NoRTSPStreaming=\"false\"/>"
        + "</trt:Capabilities>"

    /// GetCapabilities for `category` (All, Device, Events, Media; absent: All). A category
    /// the node lacks (PTZ, Imaging, Analytics) is a `ter:NoSuchService` fault, as the spec says.
    static func capabilities(at endpoint: ONVIFEndpoint, category: String?) throws(SOAPFault) -> String {
        let category = category.flatMap { $0.isEmpty ? nil : $0 } ?? "All"
        var body = "<tds:GetCapabilitiesResponse><tds:Capabilities>"
        switch category {
        case "All": body += device(at: endpoint) + events(at: endpoint) + media(at: endpoint) + profileG(at: endpoint)
        case "Device": body += device(at: endpoint)
        case "Events": body += events(at: endpoint)
        case "Media": body += media(at: endpoint)
        default:
            throw SOAPFault(code: .receiver, subcode: "ter:ActionNotSupported", detailSubcode: "ter:NoSuchService", reason: "the device has no \(category) service")
        }
        return body + "</tds:Capabilities></tds:GetCapabilitiesResponse>"
    }

    static func device(at endpoint: ONVIFEndpoint) -> String {
        "<tt:Device>" + XMLText.element("tt:XAddr", endpoint.deviceService)
            + "<tt:Network><tt:IPFilter>false</tt:IPFilter><tt:ZeroConfiguration>false</tt:ZeroConfiguration><tt:IPVersion6>false</tt:IPVersion6><tt:DynDNS>false</tt:DynDNS></tt:Network>"
            + "<tt:System><tt:DiscoveryResolve>false</tt:DiscoveryResolve><tt:DiscoveryBye>true</tt:DiscoveryBye><tt:RemoteDiscovery>false</tt:RemoteDiscovery>"
            + "<tt:SystemBackup>false</tt:SystemBackup><tt:SystemLogging>false</tt:SystemLogging><tt:FirmwareUpgrade>false</tt:FirmwareUpgrade>"
            + "<tt:SupportedVersions><tt:Major>2</tt:Major><tt:Minor>60</tt:Minor></tt:SupportedVersions></tt:System>"
            + "<tt:IO><tt:InputConnectors>0</tt:InputConnectors><tt:RelayOutputs>0</tt:RelayOutputs></tt:IO>"
            + "<tt:Security><tt:TLS1.1>false</tt:TLS1.1><tt:TLS1.2>false</tt:TLS1.2><tt:OnboardKeyGeneration>false</tt:OnboardKeyGeneration>"
            + "<tt:AccessPolicyConfig>false</tt:AccessPolicyConfig><tt:X.509Token>false</tt:X.509Token><tt:SAMLToken>false</tt:SAMLToken>"
            + "<tt:KerberosToken>false</tt:KerberosToken><tt:RELToken>false</tt:RELToken></tt:Security></tt:Device>"
    }

    static func events(at endpoint: ONVIFEndpoint) -> String {
        "<tt:Events>" + XMLText.element("tt:XAddr", endpoint.eventService)
            + "<tt:WSSubscriptionPolicySupport>false</tt:WSSubscriptionPolicySupport><tt:WSPullPointSupport>true</tt:WSPullPointSupport>"
            + "<tt:WSPausableSubscriptionManagerInterfaceSupport>false</tt:WSPausableSubscriptionManagerInterfaceSupport></tt:Events>"
    }

    static func media(at endpoint: ONVIFEndpoint) -> String {
        "<tt:Media>" + XMLText.element("tt:XAddr", endpoint.mediaService)
            + "<tt:StreamingCapabilities><tt:RTPMulticast>false</tt:RTPMulticast><tt:RTP_TCP>true</tt:RTP_TCP><tt:RTP_RTSP_TCP>true</tt:RTP_RTSP_TCP></tt:StreamingCapabilities>"
            + "</tt:Media>"
    }

    /// Profile G's services, in the capabilities' Extension (GetCapabilities has no category of their own).
    static func profileG(at endpoint: ONVIFEndpoint) -> String {
        "<tt:Extension><tt:Recording>" + XMLText.element("tt:XAddr", endpoint.recordingService)
            + "<tt:ReceiverSource>false</tt:ReceiverSource><tt:MediaProfileSource>true</tt:MediaProfileSource>"
            + "<tt:DynamicRecordings>false</tt:DynamicRecordings><tt:DynamicTracks>false</tt:DynamicTracks>"
            + "<tt:MaxStringLength>64</tt:MaxStringLength></tt:Recording>"
            + "<tt:Search>" + XMLText.element("tt:XAddr", endpoint.searchService) + "<tt:MetadataSearch>false</tt:MetadataSearch></tt:Search>"
            + (endpoint.replayURI == nil ? "" : "<tt:Replay>" + XMLText.element("tt:XAddr", endpoint.replayService) + "</tt:Replay>")
            + "</tt:Extension>"
    }

    /// GetServices: the device, media (ver10 and ver20), event, recording, search and (RTSP
    /// on) replay services, with their capabilities when asked. GetCapabilities has no
    /// place for Media2: clients find it here.
    static func services(at endpoint: ONVIFEndpoint, video: ONVIFVideoSettings, includeCapability: Bool) -> String {
        var entries: [(namespace: String, address: String, capabilities: String)] = [
            (SOAPNamespace.device, endpoint.deviceService, deviceServiceCapabilities),
            (SOAPNamespace.media, endpoint.mediaService, mediaServiceCapabilities),
            (SOAPNamespace.media2, endpoint.media2Service, Media2Service.capabilities),
            (SOAPNamespace.events, endpoint.eventService, EventService.capabilities),
            (SOAPNamespace.recording, endpoint.recordingService, RecordingService.capabilities(video: video)),
            (SOAPNamespace.search, endpoint.searchService, SearchService.capabilities),
        ]
        if endpoint.replayURI != nil { entries.append((SOAPNamespace.replay, endpoint.replayService, ReplayService.capabilities)) }
        return "<tds:GetServicesResponse>"
            + entries.map { namespace, address, capabilities in
                "<tds:Service>" + XMLText.element("tds:Namespace", namespace) + XMLText.element("tds:XAddr", address)
                    + (includeCapability ? "<tds:Capabilities>\(capabilities)</tds:Capabilities>" : "")
                    + "<tds:Version><tt:Major>2</tt:Major><tt:Minor>60</tt:Minor></tds:Version></tds:Service>"
            }.joined() + "</tds:GetServicesResponse>"
    }
}
