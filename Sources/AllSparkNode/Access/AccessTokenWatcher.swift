import Foundation
import Logging
import ServiceLifecycle

/// Picks up a token rotated by `allspark-node token --rotate` (another process): the old
/// token stops working at once, and WebSocket and RTSP sessions opened with it are closed.
/// Writes the token when the store had no room for it at start, as soon as it has.
struct AccessTokenWatcher: Service {
    static let pollInterval: Duration = .milliseconds(250)

    let policy: AccessPolicy
    let peers: PeerRegistry
    let liveVideo: LiveVideo
    let logger: Logger

    /// Run only for a generated token (a configured one cannot be rotated this way).
    func run() async throws {
        try await cancelWhenGracefulShutdown {
            var reportedFailure = false
            while !Task.isCancelled {
                // Cancelled at shutdown: a normal end, not a failure of the node.
                guard (try? await Task.sleep(for: Self.pollInterval)) != nil else { return }
                if let file = policy.tokenFile, let token = policy.currentToken, !FileManager.default.fileExists(atPath: file.path),
                    (try? file.store(token)) != nil
                {
                    logger.notice("made the access token file \(file.path) now that the store has room")
                }
                do {
                    if let generation = try policy.reloadToken() {
                        let closed = peers.close(authenticatedBefore: generation)
                        liveVideo.tokenRotated(to: policy.currentToken)
                        logger.notice("the access token was rotated; closed \(closed) WebSocket sessions that used the old one")
                    }
                    reportedFailure = false
                } catch {
                    if !reportedFailure { logger.error("cannot read the access token file: \(error); the current token stays in force") }
                    reportedFailure = true
                }
            }
        }
    }
}
