import Foundation
import Logging

/// Turns the `server.auth`, `server.token` and `server.tls` settings into what the server
/// runs with, saying at start what a user needs to know (and nothing secret).
public enum AccessSetup {
    public static func policy(for settings: ServerSettings, storeDirectory: String, logger: Logger) throws -> AccessPolicy {
        if settings.auth == "none" {
            logger.warning(
                "server.auth is none: anyone who can reach port \(settings.port) can list and download footage and change settings; use it on closed lab networks only")
            return .open
        }
        if !settings.token.isEmpty {
            logger.info("the API needs the configured server.token")
            return AccessPolicy(requiresToken: true, token: settings.token, metricsToken: settings.metricsToken, tokenFile: nil)
        }
        let file = AccessTokenFile(storeDirectory: storeDirectory)
        let token: String
        let created: Bool
        do {
            (token, created) = try file.readOrCreate()
        } catch let failure as DurableFile.Failure where failure.isOutOfSpace {
            // A full disk at first start: the node runs on and says so on /api/health; the
            // token nobody knows yet is written as soon as there is room (`AccessTokenWatcher`).
            logger.error("the access token cannot be written yet (\(failure)): the API refuses all but /api/health until the store has room")
            return AccessPolicy(requiresToken: true, token: AccessTokenFile.makeToken(), metricsToken: settings.metricsToken, tokenFile: file)
        }
        if created {
            logger.notice("made an access token for the API, WebSocket and dashboard: it is in \(file.path) (readable by this user only); `allspark-node token` prints it")
        } else {
            logger.info("the API needs the access token in \(file.path) (`allspark-node token` prints it)")
        }
        return AccessPolicy(requiresToken: true, token: token, metricsToken: settings.metricsToken, tokenFile: file)
    }

    /// The settings with `tls: auto` resolved to the certificate kept in the store.
    public static func resolvingTLS(_ settings: ServerSettings, storeDirectory: String, logger: Logger) throws -> ServerSettings {
        guard settings.tls == "auto", !settings.usesTLS else { return settings }
        let hostName = ProcessInfo.processInfo.hostName
        let certificate = try SelfSignedCertificate.loadOrCreate(storeDirectory: storeDirectory, hostName: hostName)
        logger.notice(
            "TLS with \(certificate.created ? "a new" : "the") self-signed certificate \(certificate.certificatePath); SHA-256 fingerprint \(certificate.fingerprint)")
        var resolved = settings
        resolved.tlsCertificate = certificate.certificatePath
        resolved.tlsKey = certificate.keyPath
        return resolved
    }
}
