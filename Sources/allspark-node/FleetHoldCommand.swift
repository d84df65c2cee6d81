import AllSparkNode
import ArgumentParser
import Foundation

struct FleetHoldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Hold [START, END) on every node (one hold id): through each running node's API, in the bucket for nodes that are down. Exits 1 unless every node holds it.")

    @OptionGroup var fleet: FleetOptions
    @OptionGroup var span: HoldSpanOptions
    @OptionGroup var targets: FleetTargetOptions
    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let request = try span.request(id: Hold.newID())
        let fleetTokens = try targets.fleetTokens()
        let names = targets.names
        let report = try await fleet.withFleet { http, bucket, discovery in
            let found = await discovery.discover()
            let selected: [FleetNode]
            do {
                selected = try FleetFetcher.select(names, from: found.nodes)
            } catch {
                throw ValidationError("\(error)")
            }
            if let error = found.bucketError { FetchProgressView.note("bucket: \(error)") }
            return await FleetHolder(http: http, bucket: bucket, logger: FleetOptions.logger).hold(request, nodes: selected, tokens: fleetTokens)
        }
        if json {
            try ArchiveCommand.printJSON(report)
        } else {
            if report.nodes.isEmpty { print("no nodes found") }
            for node in report.nodes {
                let bytes = node.bytes.map { ", \($0) bytes" } ?? ""
                print("\(node.name)  \(node.outcome.rawValue)\(bytes)\(node.detail.map { "  \($0)" } ?? "")")
            }
            print("hold \(report.holdID): \(report.nodes.filter { $0.outcome == .held || $0.outcome == .heldInBucket }.count) of \(report.nodes.count) nodes")
        }
        guard report.complete, !report.nodes.isEmpty else { throw ExitCode(1) }
    }
}
