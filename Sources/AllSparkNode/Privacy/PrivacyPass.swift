import Logging

/// Chooses the privacy pass for the configured mode, before recording starts.
public struct PrivacyPass: Sendable {
    public let mode: String
    public let makeMasker: @Sendable () throws -> FrameMasking

    public init(mode: String, logger: Logger) throws {
        self.mode = mode
        switch mode {
        case "none":
            logger.warning("PRIVACY IS OFF (privacy: none): faces are recorded unmasked. Set privacy: face to mask them.")
            makeMasker = { NoMasking() }
        default:
            throw PrivacyUnavailable(mode: mode)
        }
    }
}

struct PrivacyUnavailable: Error, CustomStringConvertible {
    let mode: String
    var description: String { "privacy mode \(mode) is not available in this build" }
}
