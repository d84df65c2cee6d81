import CProcessSettings

/// Transparent huge pages, off for the node. libx264 asks for them (madvise) for each of its
/// buffers of 1.75 MB or more, and a huge page is resident whole once any of it is touched:
/// 8.5 MB more at 1080p for no CPU time the benchmark can tell apart (bench/README.md).
public enum TransparentHugePages {
    /// False where the kernel refuses (no THP support); nothing changes then.
    @discardableResult
    public static func disable() -> Bool {
        allspark_disable_transparent_huge_pages() == 0
    }
}
