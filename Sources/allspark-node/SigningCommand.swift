import AllSparkNode
import ArgumentParser
import Foundation
import X509

struct SigningCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signing",
        abstract: "The node's media signing identity: its trust anchor, signing certificate, and an operator's CA.",
        subcommands: [Show.self, Request.self, Install.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the trust anchor and the signing certificate (PEM) with their SHA-256 fingerprints (made now if there are none).",
            discussion: """
                The signing key stays in the store directory (.allspark-signing-key.pem, readable by its owner only). \
                The anchor is what a validator takes as its trust anchor (ONVIF's validator: -C ANCHOR.pem; \
                `allspark-node verify --certificate ANCHOR.pem`); the footage carries the signing certificate, not the anchor. \
                --anchor prints the anchor's PEM alone, to save as that file.
                """)

        @OptionGroup var configOptions: ConfigOptions
        @Flag(help: "Print only the trust anchor's PEM.")
        var anchor = false

        func run() throws {
            let config = try configOptions.load()
            try FileManager.default.createDirectory(atPath: config.storeDirectory, withIntermediateDirectories: true)
            let identity = try MediaSigningIdentity.load(
                storeDirectory: config.storeDirectory, configuredCertificate: config.signingCertificate,
                nodeName: ClientIdentity.name(configured: config.uplink.name, storeDirectory: URL(fileURLWithPath: config.storeDirectory)))
            if anchor {
                print(identity.anchorPEM, terminator: "")
                return
            }
            let source: String
            switch identity.chainSource {
            case .own: source = "the node's own (made at its first start)"
            case .installed: source = "installed with `allspark-node signing install`"
            case .configured(let path): source = "signing.certificate: \(path)"
            }
            print("Trust anchor: \(identity.chain.anchor.subject)")
            print("  SHA-256 fingerprint: \(identity.anchorFingerprint)")
            print("  chain: \(source)")
            print("Signing certificate: \(identity.chain.signingCertificate.subject), issued by \(identity.chain.signingCertificate.issuer)")
            print("  SHA-256 fingerprint: \(identity.fingerprint)")
            print("")
            print(SigningChain.pem([identity.chain.anchor] + identity.chain.certificates.dropLast()), terminator: "")
        }
    }

    struct Request: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a certificate signing request (PEM, PKCS#10) for the node's signing key, for an operator's CA to issue.",
            discussion: """
                Issue it with any CA (openssl x509 -req, step-ca, an enterprise CA): a certificate for digital signatures, \
                not a CA. Then install the chain it gives back with `allspark-node signing install`. One CA for every node \
                means one trust anchor checks the whole fleet's footage.
                """)

        @OptionGroup var configOptions: ConfigOptions

        func run() throws {
            let config = try configOptions.load()
            try FileManager.default.createDirectory(atPath: config.storeDirectory, withIntermediateDirectories: true)
            let nodeName = ClientIdentity.name(configured: config.uplink.name, storeDirectory: URL(fileURLWithPath: config.storeDirectory))
            print(try SigningRequest.pem(storeDirectory: config.storeDirectory, nodeName: nodeName), terminator: "")
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install a certificate chain an operator's CA issued for the node's signing key.",
            discussion: """
                CHAIN.pem holds the signing certificate first, any intermediates, and the CA's root certificate (the trust \
                anchor) last. It is checked first: for this node's key, each certificate issued by the next, the last \
                self-signed, all valid now. The node signs under it from its next start (restart a running node). \
                signing.certificate in the config, when set, still comes first.
                """)

        @OptionGroup var configOptions: ConfigOptions
        @Argument(help: "The chain (PEM): signing certificate first, trust anchor last.")
        var chain: String

        func run() throws {
            let config = try configOptions.load()
            let pem: String
            do {
                pem = try TextFile.read(chain)
            } catch {
                throw ValidationError("\(chain) cannot be read: \(error.reason)")
            }
            do {
                let installed = try MediaSigningIdentity.install(chainPEM: pem, storeDirectory: config.storeDirectory)
                print("installed: signing certificate \(installed.signingCertificate.subject), trust anchor \(installed.anchor.subject)")
                print("  anchor SHA-256 fingerprint: \(try installed.anchor.sha256Fingerprint())")
                print("restart the node to sign under it")
            } catch let problem as SigningChain.Problem {
                throw ValidationError("\(chain) cannot be installed: \(problem)")
            }
        }
    }
}
