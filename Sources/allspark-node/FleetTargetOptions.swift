import AllSparkNode
import ArgumentParser
import Foundation

/// Which nodes a fleet command works on and the tokens to reach them with (fetch, hold).
struct FleetTargetOptions: ParsableArguments {
    @Option(help: "Only these nodes (names or ids, comma-separated).")
    var nodes: String?
    @Option(help: "The API token of every node.")
    var token: String?
    @Option(help: "A file of `name: token` lines, one per node.")
    var tokens: String?

    /// The nodes named, nil for every node.
    var names: [String]? {
        nodes.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    func fleetTokens() throws -> FleetTokens {
        var fleetTokens = FleetTokens(shared: token)
        if let tokens {
            do {
                fleetTokens.byNode = try FleetTokens.parse(TextFile.read(tokens), file: tokens)
            } catch {
                throw ValidationError("--tokens: \(error)")
            }
        }
        return fleetTokens
    }
}
