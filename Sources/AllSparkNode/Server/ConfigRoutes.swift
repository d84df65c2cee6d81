import Hummingbird

/// GET /api/config and PUT /api/config (a JSON object of clientConfig keys, same rules as clientConfig).
struct ConfigRoutes {
    let services: NodeServices

    func register(on router: Router<NodeRequestContext>) {
        router.get("/api/config") { _, _ in
            JSONResponse.make(.object(["config": services.live.clientConfig, "effective": effective()]))
        }
        router.put("/api/config") { request, _ in
            let body = try await request.collectBody(limit: 64 * 1024)
            guard let object = JSONValue.parse(String(buffer: body))?.object else {
                return JSONResponse.error("the body must be a JSON object of config keys", status: .badRequest, extra: ["key": .string("")])
            }
            do {
                let outcome = try services.live.apply(json: object)
                return JSONResponse.make(.object([
                    "status": .string("success"),
                    "config": services.live.clientConfig,
                    "applied": .array(outcome.applied.map { .string($0) }),
                    "ignored": .array((outcome.notChangeableWhileRunning + outcome.unknown).map { .string($0) }),
                ]))
            } catch let error as ConfigError {
                return JSONResponse.error(error.description, status: .badRequest, extra: ["key": .string(error.key ?? "")])
            }
        }
    }

    /// Every key's effective value, and whether it can change without a restart (secrets left out).
    private func effective() -> JSONValue {
        let config = services.live.config
        var fields: [String: JSONValue] = [:]
        for key in ConfigKeys.all where !["server.token", "server.metricsToken"].contains(key.name) {
            fields[key.name] = .object(["value": key.value(in: config).json, "runtime": .bool(key.appliesWhileRunning), "allowed": .string(key.allowed)])
        }
        return .object(fields)
    }
}
