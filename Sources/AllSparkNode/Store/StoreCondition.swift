/// Whether the store could take a new chunk now, as its directory and file system say.
enum StoreCondition: Equatable, Sendable {
    /// The directory is gone, another file system without this store's marker sits at its
    /// path, or it cannot be written (read-only, permissions). The text says which.
    case unavailable(String)
    /// `roomBytes`: what a new chunk could occupy, with every finished chunk evicted if need
    /// be and the free-space floor kept (file system limit, not the cap). `freeBytes`: what
    /// the file system reports free.
    case writable(roomBytes: Int64, freeBytes: Int64)
}
