import Foundation

/// The URLs the node's API answers on, for its registry record: the bound host when it is
/// one address, else every address of every interface that is up (IPv4 first, loopback
/// last, IPv6 link-local left out: it needs an interface name the asker does not share).
enum NodeAddresses {
    static func apiURLs(host: String, port: Int, tls: Bool) -> [String] {
        let scheme = tls ? "https" : "http"
        let hosts = ["0.0.0.0", "::", ""].contains(host) ? interfaceAddresses() : [host]
        return hosts.map { "\(scheme)://\($0.contains(":") ? "[\($0)]" : $0):\(port)" }
    }

    static func interfaceAddresses() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return ["127.0.0.1"] }
        defer { freeifaddrs(first) }
        var found: [(address: String, order: Int)] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let host = String(cString: text)
            guard !host.lowercased().hasPrefix("fe80") else { continue }
            let loopback = flags & Int32(IFF_LOOPBACK) != 0
            found.append((host, (loopback ? 2 : 0) + (family == AF_INET6 ? 1 : 0)))
        }
        var seen = Set<String>()
        return found.sorted { $0.order < $1.order }.map(\.address).filter { seen.insert($0).inserted }
    }
}
