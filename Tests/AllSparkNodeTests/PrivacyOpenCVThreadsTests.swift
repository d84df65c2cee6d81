import COpenCVShim
import Testing

/// OpenCV's thread count is fixed before the program has threads of its own: changing it
/// later rebuilds OpenCV's pool under any call in flight on another thread, which crashed a
/// Debian 13 run of this suite (its OpenCV runs on TBB) when a pipeline started beside a search.
@Suite("Privacy: OpenCV's threads")
struct PrivacyOpenCVThreadsTests {
    @Test func openCVRunsOnOneThreadFromTheStart() {
        // No test here or elsewhere sets the count: 1 can only come from the shim as it loads.
        #expect(allspark_opencv_threads() == 1)
    }
}
