import Foundation

/// Who a node is across renames and restarts: a UUID made at first start and kept in the
/// store directory, and the name it goes by (the uplink's client name). The fleet merges
/// what mDNS and the bucket say about a node by this id.
public struct NodeIdentity: Sendable, Equatable {
    static let fileName = ".allspark-node-id"

    public let id: String
    public let name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// The id kept in `storeDirectory`, made there when it is missing or unreadable. A store
    /// that cannot be written gets an id for this run only (health reports that store).
    public static func resolve(storeDirectory: URL, configuredName: String) -> NodeIdentity {
        let name = ClientIdentity.name(configured: configuredName, storeDirectory: storeDirectory)
        let path = storeDirectory.appendingPathComponent(fileName).path
        if let saved = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            let uuid = UUID(uuidString: saved)
        {
            return NodeIdentity(id: uuid.uuidString.lowercased(), name: name)
        }
        let fresh = UUID().uuidString.lowercased()
        _ = try? DurableFile.write(fresh + "\n", to: path)
        return NodeIdentity(id: fresh, name: name)
    }
}
