import Foundation
import Testing

@testable import AllSparkNode

/// Searches for 5 ms and finds nothing: a search that is still in flight when `push` has
/// handed it out and released what it could.
private final class FiveMillisecondDetector: RegionDetector {
    func detect(in frame: YUV420Frame, appendingTo regions: inout [PixelRect]) throws(PrivacyError) {
        usleep(5_000)
    }
}

@Suite("Privacy: a real-time source's frames leave with the search of them, not with the next frame")
struct PrivacySearchWaitTests {
    /// Every frame is searched itself (stride 1, no "nothing changed", no lookback: a frame
    /// needs only its own search), and the source's frames are 10 s apart: `push` may wait up
    /// to 5 s, a bound only a stalled thread reaches.
    private func masker(realTimeSource: Bool) throws -> DelayLineMasker {
        try DelayLineMasker(
            width: 160, height: 120,
            settings: .init(
                capacity: 8, fps: 0.1, style: .fill, searchesChangedRegions: false, lookbackMs: 0, busySearchStride: 1,
                realTimeSource: realTimeSource),
            makeDetectors: { [FiveMillisecondDetector()] })
    }

    /// How many frames had left by the end of each push.
    private func releasedAfterEachPush(_ masker: DelayLineMasker, captureAgeMs: Int64) throws -> [Int] {
        var released = 0
        var counts: [Int] = []
        for _ in 0..<5 {
            let picture = stripedFrame(width: 160, height: 120)
            try withExtendedLifetime(picture) {
                try masker.push(picture.frame, captureTimeMs: WallClock.nowMs() - captureAgeMs, emit: { _ in released += 1 })
            }
            counts.append(released)
        }
        try masker.finish(emit: { _ in released += 1 })
        #expect(released == 5)
        return counts
    }

    @Test("each frame leaves in its own push once its search is done")
    func framesLeaveWithTheirSearch() throws {
        let masker = try masker(realTimeSource: true)
        #expect(masker.settings.searchWaitAfterCaptureMs == 5000)
        #expect(try releasedAfterEachPush(masker, captureAgeMs: 0) == [1, 2, 3, 4, 5])
        #expect(masker.framesSearched == 5)
    }

    @Test("a recording thread already behind its source does not wait: the frame leaves with the next")
    func aThreadBehindDoesNotWait() throws {
        let masker = try masker(realTimeSource: true)
        // Captured 6 s ago, past the 5 s the next frame may be waited for: nothing is.
        let counts = try releasedAfterEachPush(masker, captureAgeMs: 6_000)
        #expect(counts.first == 0, "\(counts)")
    }

    @Test("a file read as fast as it decodes never waits")
    func unpacedSourceNeverWaits() throws {
        let masker = try masker(realTimeSource: false)
        #expect(masker.settings.searchWaitAfterCaptureMs == 0)
        let counts = try releasedAfterEachPush(masker, captureAgeMs: 0)
        #expect(counts.first == 0, "\(counts)")
    }
}
