/// The edge server answers every uploaded file with a status message once it has written
/// the file. In the uplink role the node waits for that answer before sending the next
/// file, so at most one file is in flight however slowly the server stores them.
final class UploadAcknowledgements: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    static let timeout: Duration = .seconds(60)

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(16))
    }

    func received() { continuation.yield() }
    func close() { continuation.finish() }

    /// Waits for the next answer; returns false after the timeout or when the connection ended.
    func next() async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var iterator = self.stream.makeAsyncIterator()
                return await iterator.next() != nil
            }
            group.addTask {
                try? await Task.sleep(for: Self.timeout)
                return false
            }
            let answer = await group.next() ?? false
            group.cancelAll()
            return answer
        }
    }
}
