import Foundation

/// Asks a node's `/api/health` whether it is up, and checks the answer is from the node
/// meant (an address may now belong to another node, or to something that is no node).
struct NodeProbe: Sendable {
    let http: FleetHTTP

    struct Answer: Sendable {
        let id: String?
        let name: String?
        let live: FleetNode.Live
    }

    /// The first URL that answers as node `id` (any node when nil), or why none did.
    func probe(urls: [String], id: String?) async -> Result<Answer, ProbeFailure> {
        var reasons: [String] = []
        for url in urls {
            do {
                let answer = try await health(url)
                if let id, let answered = answer.id, answered != id {
                    reasons.append("\(url) is another node (\(answered))")
                    continue
                }
                return .success(answer)
            } catch {
                reasons.append("\(url): \(error)")
            }
        }
        return .failure(ProbeFailure(description: reasons.isEmpty ? "no address known" : reasons.joined(separator: "; ")))
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let description: String
    }

    private func health(_ url: String) async throws -> Answer {
        // 503 is a node that is up but unwell: its stored chunks can still be read.
        let (status, body) = try await http.getSmall(url + "/api/health", token: nil, limit: 256 * 1024)
        guard status == 200 || status == 503,
            case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView)),
            case .string(let level)? = fields["status"]
        else { throw ProbeFailure(description: "answered \(status) without a node's health report") }
        var id: String?
        var name: String?
        if case .object(let node)? = fields["node"] {
            if case .string(let text)? = node["id"] { id = text }
            if case .string(let text)? = node["name"] { name = text }
        }
        var ring: NodeRecord.Extent?
        if case .object(let store)? = fields["store"], case .number(let first)? = store["oldestMs"], case .number(let last)? = store["newestMs"] {
            ring = NodeRecord.Extent(firstMs: Int64(first), lastMs: Int64(last))
        }
        var clock: NodeRecord.Clock?
        if case .object(let kernel)? = fields["clock"], case .bool(let synchronized)? = kernel["synchronized"] {
            let estimated: Double = if case .number(let value)? = kernel["estimatedErrorMs"] { value } else { 0 }
            let maximum: Double = if case .number(let value)? = kernel["maximumErrorMs"] { value } else { 0 }
            clock = NodeRecord.Clock(synchronized: synchronized, estimatedErrorMs: estimated, maximumErrorMs: maximum)
        }
        return Answer(id: id, name: name, live: FleetNode.Live(url: url, status: level, ring: ring, clock: clock))
    }
}
