import Foundation

/// The first and last frame times the node's archive holds, kept up to date cheaply: the
/// oldest manifest is found once (one listing of one key), the newest by listing only the
/// manifests after the last one seen. Manifest keys sort by chunk start time.
actor ArchiveExtent {
    private let catalog: ArchiveCatalog
    private var oldest: ArchiveManifest?
    private var newestKey: String?
    private var newest: ArchiveManifest?

    init(catalog: ArchiveCatalog) {
        self.catalog = catalog
    }

    func current() async throws -> NodeRecord.Extent? {
        let prefix = catalog.layout.manifestsPrefix
        if oldest == nil {
            let page = try await catalog.client.list(prefix: prefix, maxKeys: 1)
            if let key = page.keys.first { oldest = try await catalog.manifest(at: key) }
        }
        var token: String?
        repeat {
            let page = try await catalog.client.list(prefix: prefix, startAfter: token == nil ? newestKey : nil, continuationToken: token)
            if let key = page.keys.last {
                newestKey = key
                newest = try await catalog.manifest(at: key) ?? newest
            }
            token = page.nextContinuationToken
        } while token != nil
        guard let oldest, let newest else { return nil }
        return NodeRecord.Extent(firstMs: oldest.firstFrameMs, lastMs: max(newest.lastFrameMs, oldest.lastFrameMs))
    }
}
