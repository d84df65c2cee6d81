import AllSparkNode
import ArgumentParser
import Foundation

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the access token the node made for its API, WebSocket and dashboard (made now if there is none).",
        discussion: """
            The token lives in the store directory (.allspark-token, readable by its owner only). With --rotate a \
            new one replaces it: a running node stops accepting the old one within a second and closes the \
            WebSocket sessions opened with it.
            """)

    @OptionGroup var configOptions: ConfigOptions

    @Flag(help: "Replace the token with a new random one and print the new one.")
    var rotate = false

    func run() throws {
        let config = try configOptions.load()
        if config.server.auth == "none" {
            throw ValidationError("server.auth is none: the node asks for no token (set server.auth: token)")
        }
        if !config.server.token.isEmpty {
            guard !rotate else {
                throw ValidationError("the token is fixed by server.token (config, ALLSPARK_SERVER_TOKEN or --token): change it there")
            }
            print(config.server.token)
            return
        }
        try FileManager.default.createDirectory(atPath: config.storeDirectory, withIntermediateDirectories: true)
        let file = AccessTokenFile(storeDirectory: config.storeDirectory)
        let token = rotate ? try file.rotate() : try file.readOrCreate().token
        print(token)
    }
}
