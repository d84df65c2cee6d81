import Foundation
import Logging

/// Puts one hold (one id) on every node: through its API when it answers
/// (`POST /api/holds`), else in its own object in the bucket (`BucketHolds`), so that its
/// archive keeps the span while it is down and the node takes the hold into its ring when it
/// is back (`BucketHoldsIntake`). A node that answers and refuses (the share
/// limit) is reported as refused, not held behind its back in the bucket.
public struct FleetHolder: Sendable {
    let http: FleetHTTP
    let bucket: S3Client?
    let logger: Logger

    public init(http: FleetHTTP, bucket: S3Client?, logger: Logger) {
        self.http = http
        self.bucket = bucket
        self.logger = logger
    }

    public func hold(_ request: HoldRequest, nodes: [FleetNode], tokens: FleetTokens, nowMs: Int64 = WallClock.nowMs()) async -> FleetHoldReport {
        let hold = request.hold(createdMs: nowMs)
        let results = (try? await BoundedTasks.map(nodes, limit: 8) { node in await self.hold(hold, on: node, token: tokens.token(for: node)) }) ?? []
        return FleetHoldReport(holdID: hold.id, startMs: hold.startMs, endMs: hold.endMs, nodes: results.sorted { $0.name < $1.name })
    }

    private func hold(_ hold: Hold, on node: FleetNode, token: String?) async -> FleetHoldReport.Node {
        var unreachable = node.unreachable ?? "not online"
        if let url = node.live?.url {
            do {
                return try await holdOnline(hold, node: node, url: url, token: token)
            } catch {
                unreachable = "\(url) did not answer: \(error)"
            }
        }
        guard let record = node.record, let bucket else {
            return report(node, .failed, detail: "\(unreachable), and \(bucket == nil ? "no bucket is configured" : "the bucket has no record of it")")
        }
        do {
            let layout = ArchiveLayout(prefix: record.archivePrefix)
            let key = try await BucketHolds(client: bucket, layout: layout).add(hold)
            let source = BucketSource(client: bucket, prefix: record.archivePrefix, logger: logger)
            let bytes = try await source.manifests(startMs: hold.startMs, endMs: hold.endMs).reduce(Int64(0)) { $0 + $1.chunkBytes + $1.timestampsBytes }
            return report(node, .heldInBucket, bytes: bytes, detail: "\(unreachable); held in \(bucket.bucket)/\(key) until the node takes it")
        } catch {
            return report(node, .failed, detail: "\(unreachable); the hold could not be written to the bucket: \(error)")
        }
    }

    private func holdOnline(_ hold: Hold, node: FleetNode, url: String, token: String?) async throws -> FleetHoldReport.Node {
        var fields: [String: JSONValue] = [
            "id": .string(hold.id), "start": .number(Double(hold.startMs) / 1000), "end": .number(Double(hold.endMs) / 1000),
            "reason": .string(hold.reason),
        ]
        if let expiresMs = hold.expiresMs { fields["expires"] = .number(Double(expiresMs) / 1000) }
        let (status, body) = try await http.postJSON("\(url)/api/holds", token: token, body: Array(JSONValue.object(fields).rendered().utf8))
        let answer = JSONValue.parse(String(buffer: body))
        guard status == 201 else {
            let message = answer?["message"]?.string ?? "HTTP \(status)"
            return report(node, .refused, detail: status == 401 ? "\(message) (the token was refused: --token or --tokens)" : message)
        }
        return report(node, .held, bytes: answer?["heldBytes"]?.number.map { Int64($0) })
    }

    private func report(_ node: FleetNode, _ outcome: FleetHoldReport.Outcome, bytes: Int64? = nil, detail: String? = nil) -> FleetHoldReport.Node {
        FleetHoldReport.Node(name: node.name, id: node.id, outcome: outcome, bytes: bytes, detail: detail)
    }
}
