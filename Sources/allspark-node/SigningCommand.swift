import AllSparkNode
import ArgumentParser
import Foundation

struct SigningCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signing",
        abstract: "The node's media signing identity.",
        subcommands: [Show.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the certificate the node signs its footage under (PEM) and its SHA-256 fingerprint (made now if there is none).",
            discussion: """
                The signing key stays in the store directory (.allspark-signing-key.pem, readable by its owner only); \
                this prints only its certificate: signing.certificate when configured, else the node's self-signed one. \
                Give it to `allspark-node verify --certificate` to check footage against this node.
                """)

        @OptionGroup var configOptions: ConfigOptions

        func run() throws {
            let config = try configOptions.load()
            try FileManager.default.createDirectory(atPath: config.storeDirectory, withIntermediateDirectories: true)
            let identity = try MediaSigningIdentity.load(
                storeDirectory: config.storeDirectory, configuredCertificate: config.signingCertificate,
                nodeName: ClientIdentity.name(configured: config.uplink.name, storeDirectory: URL(fileURLWithPath: config.storeDirectory)))
            print("SHA-256 fingerprint: \(identity.fingerprint)")
            print(identity.certificatePEM, terminator: identity.certificatePEM.hasSuffix("\n") ? "" : "\n")
        }
    }
}
