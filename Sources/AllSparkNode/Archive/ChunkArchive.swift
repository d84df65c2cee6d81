import Foundation
import Logging
import Synchronization

/// The archive tier behind the ring: one bucket prefix in an S3-compatible store, what
/// waits to go there, and the catalog that reads it back. Made once per node when
/// `archive.endpoint` is set; the uploader service moves chunks, the routes and protocol
/// sessions read through the catalog.
public final class ChunkArchive: Sendable {
    public let settings: ArchiveSettings
    public let client: S3Client
    public let layout: ArchiveLayout
    public let nodeName: String
    let backlog = ArchiveBacklog()
    let journal: ArchiveJournal
    public let catalog: ArchiveCatalog
    private let storeDirectory: URL
    private let logger: Logger
    /// What `archive.maxAgeDays` deleted (ArchiveAgeRetention), as the store's log has it.
    private let ageDeletions: Mutex<ArchiveDeletionLog>

    /// - Throws: when the settings cannot work (a malformed endpoint or bucket, no credentials).
    /// - Parameter refusals: the node's, where the catalog counts range listings past `BucketListingLimit`.
    public init(settings: ArchiveSettings, nodeName: String, storeDirectory: URL, refusals: RefusalCounters? = nil, logger: Logger) throws {
        let prefix = settings.resolvedPrefix(clientName: nodeName)
        guard ArchiveSettings.isValidPrefix(prefix) else {
            throw ArchiveError(description: "archive.prefix must be a relative key path without empty, . or .. segments, got \"\(prefix)\"")
        }
        let client = try settings.makeClient()
        self.settings = settings
        self.nodeName = nodeName
        layout = ArchiveLayout(prefix: prefix)
        self.client = client
        journal = ArchiveJournal(storeDirectory: storeDirectory, target: "\(client.endpoint.absoluteString) \(settings.bucket) \(prefix)")
        self.storeDirectory = storeDirectory
        self.logger = logger
        ageDeletions = Mutex(ArchiveDeletionLog.read(storeDirectory: storeDirectory.path))
        catalog = ArchiveCatalog(
            client: client, layout: layout, fetchDirectory: storeDirectory.appendingPathComponent(ArchiveCatalog.fetchDirectoryName),
            refusals: refusals, logger: logger)
        logger.notice("archive: chunks go to \(client.bucketDescription) under \(prefix) (\(client.signer.credentials))")
    }

    public func status(nowMs: Int64 = WallClock.nowMs(), nowMonotonicMs: Int64 = WallClock.monotonicMs()) -> ArchiveStatus {
        backlog.snapshot(nowMs: nowMs, nowMonotonicMs: nowMonotonicMs)
    }

    public func statusJSON() -> JSONValue {
        guard case .object(var fields) = status().json(bucket: settings.bucket, endpoint: settings.endpoint, prefix: layout.prefix) else { return .null }
        fields["maxAgeDays"] = .number(settings.maxAgeDays)
        fields["deletedByAge"] = ageDeletionLog.json
        return .object(fields)
    }

    public var ageDeletionLog: ArchiveDeletionLog { ageDeletions.withLock { $0 } }

    /// Changes the account of age deletions, and keeps it when something was deleted or failed.
    func recordAgeDeletions(_ change: (inout ArchiveDeletionLog) -> Void) {
        let (before, after) = ageDeletions.withLock { log in
            let before = log
            change(&log)
            return (before, log)
        }
        guard after.chunksDeleted != before.chunksDeleted || after.lastPassError != nil else { return }
        do {
            try after.write(storeDirectory: storeDirectory.path)
        } catch {
            logger.warning("archive: could not write \(ArchiveDeletionLog.fileName): \(error)")
        }
    }

    /// A finished chunk joins the backlog.
    public func chunkSaved(_ record: ChunkRecord) { backlog.add(record) }
}

public struct ArchiveError: Error, CustomStringConvertible {
    public let description: String
}
