import AllSparkNode
import ArgumentParser

/// The span a hold keeps and why, as `hold add` and `fleet hold` take them.
struct HoldSpanOptions: ParsableArguments {
    @Argument(help: "Start: epoch seconds (decimals allowed) or ISO 8601.")
    var start: String
    @Argument(help: "End (exclusive): epoch seconds or ISO 8601.")
    var end: String
    @Option(help: "Why the footage is kept, and for whom.")
    var reason: String
    @Option(help: "When the hold lapses by itself (epoch seconds or ISO 8601); default: when released.")
    var expires: String?

    func request(id: String? = nil) throws -> HoldRequest {
        let startMs = try ChunksCommand.parseTime(start, option: "START")
        let endMs = try ChunksCommand.parseTime(end, option: "END")
        let expiresMs = try expires.map { try ChunksCommand.parseTime($0, option: "--expires") }
        return try HoldCommand.validated { try HoldRequest(startMs: startMs, endMs: endMs, reason: reason, expiresMs: expiresMs, id: id) }
    }
}
