import CAvahi

/// What the node publishes over mDNS: its DNS-SD instance name, port and TXT record.
public struct NodeAdvertisement: Sendable, Equatable {
    /// The node's service type. Never `_allspark._tcp`: iOS apps would list the node as an edge server.
    public static let serviceType = "_allspark-node._tcp"
    /// TXT keys the node sets itself; extra entries may not reuse them.
    public static let reservedKeys: Set<String> = ["name", "version", "api", "tls"]
    /// The TXT key of the node's lasting id (NodeIdentity).
    public static let idKey = "id"

    /// The instance name asked for; avahi may publish an alternative after a collision.
    public let name: String
    public let port: UInt16
    /// `key=value` entries, in publishing order.
    public let txtRecord: [String]

    /// - Parameters:
    ///   - name: instance name and the TXT `name` value (1...63 bytes of UTF-8).
    ///   - apiPath: where the node's HTTP API lives, published as `api=`.
    ///   - extraTXT: further entries, published after the fixed ones in key order.
    public init(
        name: String, port: UInt16, version: String, apiPath: String = "/api", tlsEnabled: Bool,
        extraTXT: [String: String] = [:]
    ) throws(DiscoveryError) {
        guard avahi_is_valid_service_name(name) != 0 else {
            throw .invalidAdvertisement("service name \"\(name)\" must be 1...63 bytes")
        }
        let clashing = Set(extraTXT.keys).intersection(Self.reservedKeys)
        guard clashing.isEmpty else {
            throw .invalidAdvertisement("extra TXT keys \(clashing.sorted()) are set by the node itself")
        }
        let fixed = [("name", name), ("version", version), ("api", apiPath), ("tls", tlsEnabled ? "on" : "off")]
        let extra = extraTXT.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        var entries: [String] = []
        for (key, value) in fixed + extra {
            entries.append(try Self.txtEntry(key: key, value: value))
        }
        self.name = name
        self.port = port
        txtRecord = entries
    }

    /// One `key=value` string, checked against RFC 6763 §6: printable ASCII key without `=`,
    /// whole entry at most 255 bytes.
    private static func txtEntry(key: String, value: String) throws(DiscoveryError) -> String {
        let keyIsValid = !key.isEmpty && key.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: "=") }
        guard keyIsValid else {
            throw .invalidAdvertisement("TXT key \"\(key)\" must be printable ASCII without '='")
        }
        let entry = "\(key)=\(value)"
        guard entry.utf8.count <= 255 else {
            throw .invalidAdvertisement("TXT entry for \"\(key)\" is longer than 255 bytes")
        }
        return entry
    }
}
