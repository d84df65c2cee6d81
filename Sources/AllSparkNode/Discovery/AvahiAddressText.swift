import CAvahi
import Glibc

/// The numeric text of a resolved address; a link-local IPv6 address gets `%interface`,
/// without which it cannot be connected to.
func avahiAddressText(_ address: UnsafePointer<AvahiAddress>, interface: AvahiIfIndex) -> String? {
    let text: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(AVAHI_ADDRESS_STR_MAX)) { buffer in
        guard let start = buffer.baseAddress, avahi_address_snprint(start, buffer.count, address) != nil else {
            return nil
        }
        return String(cString: start)
    }
    guard let text else { return nil }
    guard address.pointee.proto == AvahiProtocol(AVAHI_PROTO_INET6), text.lowercased().hasPrefix("fe80:") else {
        return text
    }
    let interfaceName: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(IF_NAMESIZE)) { buffer in
        guard interface >= 0, let start = buffer.baseAddress, if_indextoname(UInt32(interface), start) != nil else {
            return nil
        }
        return String(cString: start)
    }
    return interfaceName.map { "\(text)%\($0)" } ?? text
}
