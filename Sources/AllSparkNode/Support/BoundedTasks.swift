/// Runs work for many items at once, but never more than a set number at a time: a fleet
/// may be hundreds of nodes and a range thousands of manifests, and each task holds a
/// connection and a little memory.
enum BoundedTasks {
    /// `body` for each item as it arrives, at most `limit` running at once; results in the
    /// order they finish. The first error cancels the rest and is thrown.
    static func map<Item: Sendable, Output: Sendable>(
        _ items: AsyncStream<Item>, limit: Int, _ body: @escaping @Sendable (Item) async throws -> Output
    ) async throws -> [Output] {
        try await withThrowingTaskGroup(of: Output.self) { group in
            var outputs: [Output] = []
            var running = 0
            for await item in items {
                if running >= max(1, limit), let output = try await group.next() {
                    outputs.append(output)
                    running -= 1
                }
                group.addTask { try await body(item) }
                running += 1
            }
            while let output = try await group.next() { outputs.append(output) }
            return outputs
        }
    }

    /// `body` for each item, at most `limit` running at once; results in the items' order.
    static func map<Item: Sendable, Output: Sendable>(
        _ items: [Item], limit: Int, _ body: @escaping @Sendable (Item) async throws -> Output
    ) async throws -> [Output] {
        let (stream, feed) = AsyncStream.makeStream(of: (index: Int, item: Item).self)
        for (index, item) in items.enumerated() { feed.yield((index, item)) }
        feed.finish()
        let outputs = try await map(stream, limit: limit) { entry in (index: entry.index, output: try await body(entry.item)) }
        return outputs.sorted { $0.index < $1.index }.map(\.output)
    }
}
