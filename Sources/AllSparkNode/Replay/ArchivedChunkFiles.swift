import Synchronization

/// The archived chunks one replay has copied from the bucket to play: each is kept until
/// the replay has moved two chunks past it (the chunk a PLAY looked for its key frame in is
/// the one it plays first), and all go when the replay does. The files sit in the store's
/// archive fetch folder, whose leftovers the node clears at start.
final class ArchivedChunkFiles: Sendable {
    static let kept = 2

    private let catalog: ArchiveCatalog
    private let fetched = Mutex<[FetchedChunk]>([])

    init(catalog: ArchiveCatalog) {
        self.catalog = catalog
    }

    /// The local path of `manifest`'s chunk file, fetched now unless it already is; nil when
    /// the bucket does not give it (checked against the manifest) within `ReplayFootage.archiveWait`.
    func path(of manifest: ArchiveManifest) -> String? {
        if let copy = fetched.withLock({ $0.first { $0.manifest.stamp == manifest.stamp } }) { return copy.chunkPath }
        let catalog = catalog
        guard
            let copy = BoundedWait.result(within: ReplayFootage.archiveWait, abandoned: { $0.remove() }, { try await catalog.fetch(manifest) })
        else { return nil }
        let passed = fetched.withLock { list -> [FetchedChunk] in
            list.append(copy)
            let over = max(0, list.count - Self.kept)
            defer { list.removeFirst(over) }
            return Array(list.prefix(over))
        }
        // A reader that has the file open keeps reading it after it is removed.
        passed.forEach { $0.remove() }
        return copy.chunkPath
    }

    deinit {
        fetched.withLock { $0 }.forEach { $0.remove() }
    }
}
