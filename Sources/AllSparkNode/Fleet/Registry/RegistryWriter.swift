import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the node's record in the bucket: written once the API serves, every
/// `interval` after, and with `state: stopped` at shutdown. The bucket is the fleet's
/// registry; a node that stops writing is offline from its last-seen time on.
///
/// It runs first in the node's service group, so it stops last (the group stops services in
/// reverse): the stopped record sees the recorder's last chunk and the uploader's last
/// upload. It has its own S3 client because the uploader closes the archive's when it stops.
public final class RegistryWriter: Service, Sendable {
    static let interval: Duration = .seconds(30)

    private let identity: NodeIdentity
    private let archive: ChunkArchive
    private let client: S3Client
    private let store: ChunkStore
    private let server: ServerSettings
    private let signing: SigningIdentitySource?
    private let extent: ArchiveExtent
    private let logger: Logger
    private let startedAtMs = WallClock.nowMs()
    /// The API's bound port once it serves; 0 before.
    private let servingPort = Atomic<Int>(0)
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// What the record an earlier run left says of that run and before (nil until read).
    private let earlier = Mutex<NodeRecord?>(nil)
    private let earlierRead = Atomic<Bool>(false)

    public init(
        identity: NodeIdentity, archive: ChunkArchive, store: ChunkStore, server: ServerSettings, signing: SigningIdentitySource?, logger: Logger
    ) {
        self.identity = identity
        self.signing = signing
        self.archive = archive
        self.store = store
        self.server = server
        self.logger = logger
        let shared = archive.client
        client = S3Client(
            endpoint: shared.endpoint, bucket: shared.bucket, region: shared.signer.region, pathStyle: shared.pathStyle,
            credentials: shared.signer.credentials)
        extent = ArchiveExtent(
            catalog: ArchiveCatalog(client: client, layout: archive.layout, fetchDirectory: archive.catalog.fetchDirectory, logger: logger))
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func serverStarted(port: Int) {
        servingPort.store(port, ordering: .releasing)
        wake.yield()
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.wakes where self.servingPort.load(ordering: .acquiring) > 0 { break }
            while !Task.isCancelled {
                await self.write(state: .running)
                try? await Task.sleep(for: Self.interval)
            }
        }
        if servingPort.load(ordering: .acquiring) > 0 { await write(state: .stopped) }
        await client.shutdown()
    }

    /// The record as of now.
    func record(state: NodeRecord.State, archiveExtent: NodeRecord.Extent?, nowMs: Int64) -> NodeRecord {
        let usage = store.usage
        let ring = usage.oldestMs.flatMap { first in usage.newestMs.map { NodeRecord.Extent(firstMs: first, lastMs: $0) } }
        let clock = KernelClock.read().map {
            NodeRecord.Clock(synchronized: $0.synchronized, estimatedErrorMs: $0.estimatedErrorMs, maximumErrorMs: $0.maximumErrorMs)
        }
        let earlier = self.earlier.withLock { $0 }
        var runs = earlier?.runs ?? []
        runs.append(NodeRecord.Run(startMs: startedAtMs, lastSeenMs: nowMs))
        let evicted = EvictedRanges((earlier?.evictedBeforeArchive ?? []) + archive.backlog.evictedBeforeArchiveRanges)
        return NodeRecord(
            id: identity.id, name: identity.name, state: state,
            apiURLs: NodeAddresses.apiURLs(host: server.host, port: servingPort.load(ordering: .acquiring), tls: server.usesTLS),
            version: NodeVersion.current, clock: clock, ring: ring, archive: archiveExtent, archivePrefix: archive.layout.prefix,
            lastSeenMs: nowMs, runs: Array(runs.suffix(NodeRecord.runsKept)), evictedBeforeArchive: evicted.ranges,
            signingAnchorPEM: signing?.identity?.anchorPEM ?? earlier?.signingAnchorPEM)
    }

    private func write(state: NodeRecord.State) async {
        let key = NodeRecord.key(prefix: archive.layout.prefix)
        do {
            if !earlierRead.load(ordering: .acquiring) {
                let bytes = try await client.get(key: key)?.body.collect(upTo: 1 << 20)
                let record = bytes.flatMap { try? NodeRecord.decode(Array(buffer: $0)) }
                earlier.withLock { $0 = record?.id == identity.id ? record : nil }
                earlierRead.store(true, ordering: .releasing)
            }
            let extent = try await extent.current()
            let bytes = try record(state: state, archiveExtent: extent, nowMs: WallClock.nowMs()).encoded()
            let digest = FileDigest.sha256Hex(of: bytes)
            try await client.put(key: key, bytes: bytes, contentType: "application/json", sha256: digest)
            try await client.put(key: NodeRecord.fleetKey(id: identity.id), bytes: bytes, contentType: "application/json", sha256: digest)
        } catch {
            logger.warning("fleet: could not write \(key) to \(client.bucketDescription): \(error)")
        }
    }
}
