import AllSparkNode
import ArgumentParser

@main
struct AllSparkNodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "allspark-node",
        abstract: "AllSpark camera node: records privacy-masked H.264 chunks into a size-capped ring store.",
        version: NodeVersion.current,
        subcommands: [RunCommand.self, ChunksCommand.self, HoldCommand.self, DevicesCommand.self, AnonymizeCommand.self, TokenCommand.self, ArchiveCommand.self, FleetCommand.self, ProbeCommand.self, VerifyCommand.self, SigningCommand.self],
        defaultSubcommand: RunCommand.self)

    static func main() async {
        LibavAllocationLimit.install()
        await main(nil)
    }
}
