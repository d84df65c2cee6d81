import Foundation

/// ONVIF's device service (ver10 device wsdl) at `/onvif/device_service`: who the node is,
/// where its services are, its clock and network. It changes nothing: the setters a
/// camera would have answer `ter:ActionNotSupported`.
struct DeviceService: ONVIFService {
    let facts: ONVIFDeviceFacts
    let interfaces: @Sendable () -> [NetworkInterfaceInfo]
    var now: @Sendable () -> Date = { Date() }

    /// The Core spec's calls a client may make before it has credentials.
    static let preAuthOperations: Set<String> = [
        "GetSystemDateAndTime", "GetCapabilities", "GetServices", "GetServiceCapabilities", "GetWsdlUrl", "GetHostname",
        "GetEndpointReference",
    ]

    static let refused: Set<String> = [
        "SetSystemDateAndTime", "SystemReboot", "SetSystemFactoryDefault", "SetHostname", "SetNTP", "SetDNS",
        "SetNetworkInterfaces", "SetNetworkProtocols", "SetScopes", "AddScopes", "RemoveScopes", "SetDiscoveryMode",
        "CreateUsers", "DeleteUsers", "SetUser", "UpgradeSystemFirmware", "SetNetworkDefaultGateway",
    ]

    func respond(to request: SOAPRequest, at endpoint: ONVIFEndpoint) throws(SOAPFault) -> String {
        let name = request.operationName
        if Self.refused.contains(name) { throw SOAPFault.actionNotSupported(name) }
        switch name {
        case "GetSystemDateAndTime": return systemDateAndTime()
        case "GetCapabilities": return try DeviceCapabilities.capabilities(at: endpoint, category: request.operation.child("Category")?.trimmedText)
        case "GetServices":
            let withCapabilities = request.operation.child("IncludeCapability")?.trimmedText == "true"
            return DeviceCapabilities.services(at: endpoint, video: facts.video, includeCapability: withCapabilities)
        case "GetServiceCapabilities": return "<tds:GetServiceCapabilitiesResponse>\(DeviceCapabilities.deviceServiceCapabilities)</tds:GetServiceCapabilitiesResponse>"
        case "GetDeviceInformation": return deviceInformation()
        case "GetNetworkInterfaces": return networkInterfaces()
        case "GetScopes": return scopes()
        case "GetHostname":
            return "<tds:GetHostnameResponse><tds:HostnameInformation><tt:FromDHCP>false</tt:FromDHCP>"
                + XMLText.element("tt:Name", facts.hostname) + "</tds:HostnameInformation></tds:GetHostnameResponse>"
        case "GetNTP":
            return "<tds:GetNTPResponse><tds:NTPInformation><tt:FromDHCP>false</tt:FromDHCP></tds:NTPInformation></tds:GetNTPResponse>"
        case "GetDNS":
            return "<tds:GetDNSResponse><tds:DNSInformation><tt:FromDHCP>false</tt:FromDHCP>" + dnsServers()
                + "</tds:DNSInformation></tds:GetDNSResponse>"
        case "GetNetworkProtocols": return networkProtocols(at: endpoint)
        case "GetDiscoveryMode":
            return "<tds:GetDiscoveryModeResponse><tds:DiscoveryMode>Discoverable</tds:DiscoveryMode></tds:GetDiscoveryModeResponse>"
        case "GetEndpointReference":
            return "<tds:GetEndpointReferenceResponse>" + XMLText.element("tds:GUID", facts.endpointReference) + "</tds:GetEndpointReferenceResponse>"
        case "GetWsdlUrl":
            return "<tds:GetWsdlUrlResponse><tds:WsdlUrl>http://www.onvif.org/Documents/Specifications.aspx</tds:WsdlUrl></tds:GetWsdlUrlResponse>"
        case "GetUsers":
            return "<tds:GetUsersResponse><tds:User><tt:Username>\(XMLText.escape(facts.user))</tt:Username>"
                + "<tt:UserLevel>Administrator</tt:UserLevel></tds:User></tds:GetUsersResponse>"
        default:
            throw SOAPFault.actionNotSupported(name)
        }
    }

    func systemDateAndTime() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: now())
        let dateTime =
            "<tt:Time><tt:Hour>\(parts.hour ?? 0)</tt:Hour><tt:Minute>\(parts.minute ?? 0)</tt:Minute><tt:Second>\(parts.second ?? 0)</tt:Second></tt:Time>"
            + "<tt:Date><tt:Year>\(parts.year ?? 1970)</tt:Year><tt:Month>\(parts.month ?? 1)</tt:Month><tt:Day>\(parts.day ?? 1)</tt:Day></tt:Date>"
        return "<tds:GetSystemDateAndTimeResponse><tds:SystemDateAndTime>"
            + "<tt:DateTimeType>\(facts.clockSynchronized ? "NTP" : "Manual")</tt:DateTimeType>"
            + "<tt:DaylightSavings>false</tt:DaylightSavings><tt:TimeZone><tt:TZ>UTC0</tt:TZ></tt:TimeZone>"
            + "<tt:UTCDateTime>\(dateTime)</tt:UTCDateTime><tt:LocalDateTime>\(dateTime)</tt:LocalDateTime>"
            + "</tds:SystemDateAndTime></tds:GetSystemDateAndTimeResponse>"
    }

    func deviceInformation() -> String {
        "<tds:GetDeviceInformationResponse>" + XMLText.element("tds:Manufacturer", ONVIFDeviceFacts.manufacturer)
            + XMLText.element("tds:Model", ONVIFDeviceFacts.model) + XMLText.element("tds:FirmwareVersion", facts.firmwareVersion)
            + XMLText.element("tds:SerialNumber", facts.identity.id) + XMLText.element("tds:HardwareId", facts.hardwareId)
            + "</tds:GetDeviceInformationResponse>"
    }

    func networkInterfaces() -> String {
        var body = "<tds:GetNetworkInterfacesResponse>"
        for (index, interface) in interfaces().enumerated() {
            body += "<tds:NetworkInterfaces token=\"\(XMLText.escape(interface.name.isEmpty ? "eth\(index)" : interface.name))\">"
            body += "<tt:Enabled>\(interface.up)</tt:Enabled>"
            body += "<tt:Info>" + XMLText.element("tt:Name", interface.name) + XMLText.element("tt:HwAddress", facts.hardwareAddress(forInterface: interface.name))
                + "<tt:MTU>\(interface.mtu)</tt:MTU></tt:Info>"
            if !interface.ipv4.isEmpty {
                body += "<tt:IPv4><tt:Enabled>true</tt:Enabled><tt:Config>"
                for address in interface.ipv4 {
                    body += "<tt:Manual>" + XMLText.element("tt:Address", address.address)
                        + "<tt:PrefixLength>\(address.prefixLength)</tt:PrefixLength></tt:Manual>"
                }
                body += "<tt:DHCP>false</tt:DHCP></tt:Config></tt:IPv4>"
            }
            body += "</tds:NetworkInterfaces>"
        }
        return body + "</tds:GetNetworkInterfacesResponse>"
    }

    func scopes() -> String {
        "<tds:GetScopesResponse>"
            + facts.scopes.map { "<tds:Scopes><tt:ScopeDef>Fixed</tt:ScopeDef>" + XMLText.element("tt:ScopeItem", $0) + "</tds:Scopes>" }
            .joined() + "</tds:GetScopesResponse>"
    }

    func networkProtocols(at endpoint: ONVIFEndpoint) -> String {
        var protocols = [(endpoint.scheme == "https" ? "HTTPS" : "HTTP", endpoint.port)]
        if endpoint.rtspPort > 0 { protocols.append(("RTSP", endpoint.rtspPort)) }
        return "<tds:GetNetworkProtocolsResponse>"
            + protocols.map { "<tds:NetworkProtocols><tt:Name>\($0.0)</tt:Name><tt:Enabled>true</tt:Enabled><tt:Port>\($0.1)</tt:Port></tds:NetworkProtocols>" }
            .joined() + "</tds:GetNetworkProtocolsResponse>"
    }

    /// The name servers of /etc/resolv.conf, as manual IPv4 or IPv6 entries.
    func dnsServers(resolvConf: String = "/etc/resolv.conf") -> String {
        guard let text = try? String(contentsOfFile: resolvConf, encoding: .utf8) else { return "" }
        return text.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == "nameserver" else { return nil }
            let address = String(fields[1])
            let isV6 = address.contains(":")
            return "<tt:DNSManual><tt:Type>\(isV6 ? "IPv6" : "IPv4")</tt:Type>"
                + XMLText.element(isV6 ? "tt:IPv6Address" : "tt:IPv4Address", address) + "</tt:DNSManual>"
        }.joined()
    }
}
