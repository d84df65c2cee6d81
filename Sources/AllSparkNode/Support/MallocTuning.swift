import Foundation

/// glibc gives each busy thread its own malloc arena. Upload buffers filled on the file
/// thread pool and freed on event-loop threads then leave freed memory spread over many
/// arenas, which RSS keeps. Two arenas keep a long-running node's memory flat.
public enum MallocTuning {
    /// Limits glibc to `count` malloc arenas; false where that is not possible (not glibc).
    @discardableResult
    public static func limitArenas(to count: Int32) -> Bool {
        // mallopt is declared in <malloc.h>, which Swift's Glibc module does not import.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMaximum: Int32 = -8  // M_ARENA_MAX
        return unsafeBitCast(symbol, to: Mallopt.self)(arenaMaximum, count) == 1
    }
}
