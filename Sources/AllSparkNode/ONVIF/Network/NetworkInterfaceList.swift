import Foundation

/// The machine's network interfaces as ONVIF's GetNetworkInterfaces reports them: each one
/// that is not loopback, whether it is up, its MTU and its IPv4 addresses with their prefix
/// lengths (the hardware address given is the instance's own: `ONVIFDeviceFacts`).
struct NetworkInterfaceInfo: Sendable, Equatable {
    var name: String
    var up: Bool
    var mtu: Int
    var ipv4: [(address: String, prefixLength: Int)]

    static func == (a: NetworkInterfaceInfo, b: NetworkInterfaceInfo) -> Bool {
        a.name == b.name && a.up == b.up && a.mtu == b.mtu
            && a.ipv4.map(\.address) == b.ipv4.map(\.address) && a.ipv4.map(\.prefixLength) == b.ipv4.map(\.prefixLength)
    }
}

enum NetworkInterfaceList {
    /// The interfaces, up ones first, then by name; loopback left out.
    static func current(sysfs: String = "/sys/class/net") -> [NetworkInterfaceInfo] {
        var found: [String: NetworkInterfaceInfo] = [:]
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            var info = found[name] ?? NetworkInterfaceInfo(
                name: name, up: flags & Int32(IFF_UP) != 0,
                mtu: Int(readSysfs(name, "mtu", sysfs: sysfs) ?? "") ?? 1500, ipv4: [])
            if let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET,
                let text = ipv4Text(address)
            {
                let prefix = entry.pointee.ifa_netmask.flatMap { mask in ipv4Text(mask) }.map(prefixLength) ?? 24
                info.ipv4.append((text, prefix))
            }
            found[name] = info
        }
        return found.values.sorted { ($0.up ? 0 : 1, $0.name) < ($1.up ? 0 : 1, $1.name) }
    }

    /// The interface whose IPv4 address is `address`, if any.
    static func named(withAddress address: String) -> NetworkInterfaceInfo? {
        current().first { $0.ipv4.contains { $0.address == address } }
    }

    static func ipv4Text(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, socklen_t(MemoryLayout<sockaddr_in>.size), &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return String(nulTerminated: text)
    }

    static func prefixLength(_ mask: String) -> Int {
        mask.split(separator: ".").compactMap { UInt8($0) }.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    private static func readSysfs(_ name: String, _ file: String, sysfs: String) -> String? {
        guard !name.contains("/"), let text = try? String(contentsOfFile: "\(sysfs)/\(name)/\(file)", encoding: .utf8) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
