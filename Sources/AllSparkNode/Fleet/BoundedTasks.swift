/// Runs work for many nodes at once, but never more than a set number at a time: the fleet
/// may be hundreds of nodes, and each task holds a connection and a little memory.
enum BoundedTasks {
    /// `body` for each item, at most `limit` running at once; results in the items' order.
    /// The first error cancels the rest and is thrown.
    static func map<Item: Sendable, Output: Sendable>(
        _ items: [Item], limit: Int, _ body: @escaping @Sendable (Item) async throws -> Output
    ) async throws -> [Output] {
        try await withThrowingTaskGroup(of: (Int, Output).self) { group in
            var results: [Output?] = Array(repeating: nil, count: items.count)
            var next = items.indices.makeIterator()
            for _ in 0..<max(1, limit) {
                guard let index = next.next() else { break }
                let item = items[index]
                group.addTask { (index, try await body(item)) }
            }
            while let (index, output) = try await group.next() {
                results[index] = output
                if let index = next.next() {
                    let item = items[index]
                    group.addTask { (index, try await body(item)) }
                }
            }
            return results.map { $0! }
        }
    }
}
