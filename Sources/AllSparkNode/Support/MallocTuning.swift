import Foundation

/// glibc malloc settings for a node that runs for months and streams large files.
///
/// - Arenas: glibc gives each busy thread its own arena. Upload buffers filled on the file
///   thread pool and freed on event-loop threads then leave freed memory spread over many
///   arenas, which RSS keeps. Two arenas keep a long-running node's memory flat.
/// - mmap threshold: glibc raises it to the size of the largest block freed, so after the
///   first 256 KiB upload pieces are freed, later ones come from the heap and the heap
///   keeps their pages. A fixed 128 KiB keeps every piece mmapped and returned when freed
///   (bench/README.md: uplink RSS growth for 1 GB 74 → 50 MB at the same speed).
public enum MallocTuning {
    /// Limits glibc to `count` malloc arenas; false where that is not possible (not glibc).
    @discardableResult
    public static func limitArenas(to count: Int32) -> Bool {
        setOption(-8, to: count)  // M_ARENA_MAX
    }

    /// Fixes the size from which blocks are mmapped (which also stops glibc moving it).
    @discardableResult
    public static func fixMmapThreshold(bytes: Int32) -> Bool {
        setOption(-3, to: bytes)  // M_MMAP_THRESHOLD
    }

    /// Gives the pages of freed blocks back to the system (malloc_trim): after start-up's
    /// trial loads of the detectors, whose many small blocks would otherwise stay in RSS.
    public static func returnFreedMemory() {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    private static func setOption(_ option: Int32, to value: Int32) -> Bool {
        // mallopt is declared in <malloc.h>, which Swift's Glibc module does not import.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        return unsafeBitCast(symbol, to: Mallopt.self)(option, value) == 1
    }
}
