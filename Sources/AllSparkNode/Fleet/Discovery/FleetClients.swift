/// The clients a piece of fleet work from the node needs (the dashboard's Fleet page): one
/// HTTP client for the nodes and the bucket's, made for it and closed after it.
struct FleetClients: Sendable {
    let settings: ArchiveSettings

    func with<Value: Sendable>(_ body: (FleetHTTP, S3Client?) async throws -> Value) async throws -> Value {
        let http = FleetHTTP()
        let bucket = settings.isEnabled ? try? settings.makeClient() : nil
        let result: Result<Value, any Error>
        do {
            result = .success(try await body(http, bucket))
        } catch {
            result = .failure(error)
        }
        await http.shutdown()
        await bucket?.shutdown()
        return try result.get()
    }
}
