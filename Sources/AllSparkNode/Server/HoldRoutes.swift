import Foundation
import Hummingbird

/// POST /api/holds {start, end, reason, expires?, id?} (epoch seconds, as /api/clip takes
/// them), GET /api/holds, DELETE /api/holds/{id}: evidence locks on a span of footage.
struct HoldRoutes {
    let services: NodeServices

    func register(on router: Router<NodeRequestContext>) {
        router.get("/api/holds") { _, _ in JSONResponse.make(listing()) }
        router.post("/api/holds") { request, _ in
            let body = try await request.collectBody(limit: 16 * 1024)
            do {
                let placement = try await services.holdPlacements.place(try Self.request(from: String(buffer: body)), in: services.store)
                return JSONResponse.make(placement.json, status: .created)
            } catch let error as HoldError {
                if case .tooMany = error { services.refusals.count(.holdCountLimit) }
                return Self.response(for: error)
            }
        }
        router.delete("/api/holds/:id") { _, context in
            let id = try context.parameters.require("id")
            do {
                let released = try services.store.releaseHold(id: id)
                return JSONResponse.make(.object(["status": .string("released"), "hold": released.json]))
            } catch let error as HoldError {
                return Self.response(for: error)
            }
        }
    }

    static func response(for error: HoldError) -> Response {
        switch error {
        case .invalid: return JSONResponse.error(error.description, status: .badRequest)
        case .unknownID: return JSONResponse.error(error.description, status: .notFound)
        case .tooMany(let limit): return JSONResponse.error(error.description, status: .conflict, extra: ["limit": .number(Double(limit))])
        case .overShare(let shortfall):
            return JSONResponse.error(error.description, status: .conflict, extra: [
                "neededBytes": .number(Double(shortfall.needed.totalBytes)),
                "recordedBytes": .number(Double(shortfall.needed.recordedBytes)),
                "expectedBytes": .number(Double(shortfall.needed.expectedBytes)),
                "heldBytes": .number(Double(shortfall.alreadyHeldBytes)),
                "limitBytes": .number(Double(shortfall.limitBytes)),
            ])
        case .unreadableFile, .writeFailed: return JSONResponse.error(error.description, status: .internalServerError)
        }
    }

    /// A JSON body of epoch seconds (numbers or numeric strings) into a checked request.
    static func request(from body: String) throws(HoldError) -> HoldRequest {
        guard let object = JSONValue.parse(body)?.object else {
            throw .invalid("the body must be a JSON object: {\"start\": epoch s, \"end\": epoch s, \"reason\": text, \"expires\": epoch s (optional)}")
        }
        func time(_ name: String) throws(HoldError) -> Int64? {
            guard let value = object[name], value != .null else { return nil }
            let text: String
            switch value {
            case .number(let number): text = String(number)
            case .string(let string): text = string
            default: throw .invalid("\(name) must be epoch seconds, got \(value.rendered())")
            }
            do {
                return try ChunkRoutes.epochMs(text, name: name)
            } catch {
                throw .invalid((error as? ChunkRoutes.APIError)?.message ?? "\(name): \(error)")
            }
        }
        guard let startMs = try time("start"), let endMs = try time("end") else { throw .invalid("start and end (epoch seconds) are required") }
        guard let reason = object["reason"]?.string else { throw .invalid("reason (text: who asked for the hold and why) is required") }
        var id: String?
        if let given = object["id"], given != .null {
            guard let text = given.string else { throw .invalid("id must be text") }
            id = text
        }
        return try HoldRequest(startMs: startMs, endMs: endMs, reason: reason, expiresMs: try time("expires"), id: id)
    }

    /// The holds in force with what each keeps, the share they may take, and what age deletes next.
    func listing() -> JSONValue {
        let store = services.store
        let nowMs = WallClock.nowMs()
        let holds = store.holds(nowMs: nowMs)
        let chunks = store.allChunks
        let config = services.live.config
        let budget = HoldShareBudget(capBytes: store.capBytes, share: store.retention.heldShare, recentChunks: chunks)
        let total = budget.demand(of: holds, chunks: chunks, nowMs: nowMs)
        var fields: [String: JSONValue] = [
            "holds": .array(holds.map { hold in
                let demand = budget.demand(of: [hold], chunks: chunks, nowMs: nowMs)
                let kept = chunks.filter(hold.covers)
                return hold.json(adding: [
                    "heldBytes": .number(Double(demand.recordedBytes)), "expectedBytes": .number(Double(demand.expectedBytes)),
                    "chunks": .number(Double(kept.count)),
                ])
            }),
            "heldBytes": .number(Double(total.recordedBytes)),
            "expectedBytes": .number(Double(total.expectedBytes)),
            "limitBytes": .number(Double(budget.limitBytes)),
            "capBytes": .number(Double(budget.capBytes)),
            "maxHeldShare": .number(budget.share),
            "maxAgeHours": .number(config.videoBufferMaxAgeHours),
        ]
        if let next = store.nextAgeEviction(nowMs: nowMs) {
            fields["nextAgeDeletion"] = .object([
                "file": .string(next.chunk.fileName), "atMs": .number(Double(next.atMs)),
                "startMs": .number(Double(next.chunk.startMs)), "endMs": .number(Double(next.chunk.endMs)),
            ])
        }
        return .object(fields)
    }
}

extension Hold {
    var json: JSONValue { json(adding: [:]) }

    func json(adding extra: [String: JSONValue]) -> JSONValue {
        var fields = extra
        fields["id"] = .string(id)
        fields["start"] = .number(Double(startMs) / 1000)
        fields["end"] = .number(Double(endMs) / 1000)
        fields["startMs"] = .number(Double(startMs))
        fields["endMs"] = .number(Double(endMs))
        fields["reason"] = .string(reason)
        fields["createdMs"] = .number(Double(createdMs))
        fields["expiresMs"] = expiresMs.map { .number(Double($0)) } ?? .null
        return .object(fields)
    }
}

extension HoldPlacement {
    var json: JSONValue {
        .object([
            "status": .string("held"),
            "hold": hold.json,
            "heldBytes": .number(Double(demand.recordedBytes)),
            "expectedBytes": .number(Double(demand.expectedBytes)),
            "chunks": .array(chunks.map { .string($0.fileName) }),
        ])
    }
}
