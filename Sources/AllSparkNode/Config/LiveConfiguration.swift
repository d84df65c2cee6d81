import Foundation
import Logging
import Synchronization

/// The node's effective configuration while it runs. Changes from clientConfig messages and
/// PUT /api/config come through `apply`: validated as a whole (all or nothing), handed to
/// the recorder, and persisted so they survive a restart.
public final class LiveConfiguration: Sendable {
    private let current: Mutex<NodeConfig>
    private let recorder: Recorder?
    private let runtimeFile: RuntimeConfigFile
    private let logger: Logger

    /// What `apply` did with each key it was given.
    public struct Outcome: Sendable, Equatable {
        public let config: NodeConfig
        /// Keys that took effect (format and chunk length at the next chunk, the cap at once).
        public let applied: [String]
        /// Known keys that only the config file or flags may change (e.g. fps, source).
        public let notChangeableWhileRunning: [String]
        /// Keys the node does not know; ignored, as PROTOCOL.md requires.
        public let unknown: [String]
    }

    public init(config: NodeConfig, recorder: Recorder?, logger: Logger) {
        current = Mutex(config)
        self.recorder = recorder
        runtimeFile = RuntimeConfigFile(storeDirectory: config.storeDirectory)
        self.logger = logger
    }

    public var config: NodeConfig { current.withLock { $0 } }

    /// Applies `values` (clientConfig keys) atomically; throws `ConfigError` naming the first bad key.
    @discardableResult
    public func apply(_ values: [String: ConfigValue]) throws -> Outcome {
        var applied: [String] = []
        var fixed: [String] = []
        var unknown: [String] = []
        let updated = try current.withLock { config -> NodeConfig in
            var candidate = config
            for name in values.keys.sorted() {
                guard let key = ConfigKeys.named(name) else {
                    unknown.append(name)
                    continue
                }
                guard key.appliesWhileRunning else {
                    fixed.append(name)
                    continue
                }
                try key.apply(values[name]!, to: &candidate)
                applied.append(name)
            }
            // Holds are never given up for a smaller cap: the change is refused instead.
            if candidate.capBytes < config.capBytes || candidate.videoBufferMaxHeldShare < config.videoBufferMaxHeldShare,
                let problem = recorder?.store.retentionProblem(capBytes: candidate.capBytes, heldShare: candidate.videoBufferMaxHeldShare)
            {
                let key = candidate.capBytes < config.capBytes ? "videoBufferMaxMB" : "videoBufferMaxHeldShare"
                throw ConfigError.refused(key: key, value: ConfigKeys.named(key)!.value(in: candidate).description, reason: problem)
            }
            config = candidate
            return candidate
        }
        if !applied.isEmpty {
            recorder?.apply(updated)
            do {
                try runtimeFile.save(updated)
            } catch {
                logger.error("could not persist the configuration change: \(error)")
            }
            logger.notice("configuration changed: \(applied.map { "\($0)=\(ConfigKeys.named($0)!.value(in: updated))" }.joined(separator: ", "))")
        }
        return Outcome(config: updated, applied: applied, notChangeableWhileRunning: fixed, unknown: unknown)
    }

    /// Applies a clientConfig object as it arrives in JSON. Unknown keys are ignored whatever
    /// their type (e.g. the edge server's communicationsPolicy object); a known key with a
    /// non-scalar value is refused.
    @discardableResult
    public func apply(json object: [String: JSONValue]) throws -> Outcome {
        var values: [String: ConfigValue] = [:]
        var unknownObjects: [String] = []
        for (key, value) in object {
            if let converted = ConfigValue(json: value) {
                values[key] = converted
            } else if let known = ConfigKeys.named(key) {
                throw ConfigError.invalidValue(key: key, value: value.rendered(), allowed: known.allowed)
            } else {
                unknownObjects.append(key)
            }
        }
        let outcome = try apply(values)
        return Outcome(
            config: outcome.config, applied: outcome.applied, notChangeableWhileRunning: outcome.notChangeableWhileRunning,
            unknown: (outcome.unknown + unknownObjects).sorted())
    }

    /// The clientConfig object the node reports: the protocol's keys with their effective values.
    public var clientConfig: JSONValue {
        let config = self.config
        return .object([
            "videoFormat": .string(config.videoFormat.rawValue),
            "videoChunkDurationMs": .number(Double(config.videoChunkDurationMs)),
            "videoBufferMaxMB": .number(config.videoBufferMaxMB),
            "fps": .number(config.fps),
            "privacy": .string(config.privacy),
        ])
    }
}
