import Foundation
import Testing

@testable import AllSparkNode

/// Faces walking in and out at the picture's edges with no lookback: the edge guard masks each
/// frame without waiting for a later search (the net that `scripts/setup.sh` installs, the
/// dev photos of `../shared/faces`).
@Suite("Privacy: the edge guard", .serialized)
struct PrivacyEdgeGuardTests {
    /// Frames of a face crossing a side edge.
    struct Crossing {
        let frames: [TestFrame]
        /// Where the face's label box is in each frame (partly outside the frame while crossing).
        let labels: [PixelRect]
    }

    /// A dev photo's face (its label box and a third more around it, scaled to a face 100 px
    /// wide) crossing an edge of a 640x360 grey picture in 24 frames: coming in, or going
    /// out when `leaving`. With `creeping`, it comes in over 150 frames to half its patch, in
    /// a dark room (a third of the light, sensor noise): under a pixel a frame.
    static func crossing(
        _ image: String, label: PixelRect, edge: PrivacyEdgeTests.Edge, leaving: Bool, creeping: Bool = false, dataset: FaceDataset
    ) throws -> Crossing {
        let directory = try TestFiles.makeDirectory("edge-guard")
        let margin = label.width / 3
        let photo = try TestFrame.decode(dataset.path(of: image))
        let patch = PixelRect(x: label.x - margin, y: label.y - margin, width: label.width + 2 * margin, height: label.height + 2 * margin)
            .clamped(toWidth: photo.width, height: photo.height)
        let scale = 100 / Double(label.width)
        let (patchWidth, patchHeight) = (Int(Double(patch.width) * scale) & ~1, Int(Double(patch.height) * scale) & ~1)
        let face = PixelRect(
            x: Int(Double(label.x - patch.x) * scale), y: Int(Double(label.y - patch.y) * scale),
            width: Int(Double(label.width) * scale), height: Int(Double(label.height) * scale))
        let (width, height, frames) = (640, 360, creeping ? 150 : 36)
        let side = edge == .left || edge == .right
        let step = Double(side ? patchWidth : patchHeight) / (creeping ? 300 : 24)
        // Where the patch is in frame n: from wholly outside to wholly inside in 24 frames.
        let (middleX, middleY) = ((width - patchWidth) / 2, max(0, (height - patchHeight) / 2))
        func place(_ n: Int) -> (x: Int, y: Int) {
            let travelled = Int((Double(leaving ? frames - 1 - n : n) * step).rounded())
            switch edge {
            case .left: return (travelled - patchWidth, middleY)
            case .right: return (width - travelled, middleY)
            case .top: return (middleX, travelled - patchHeight)
            case .bottom: return (middleX, height - travelled)
            }
        }
        let travelled = "round((\(leaving ? "\(frames - 1)-n" : "n"))*\(step))"
        let (x, y): (String, String)
        switch edge {
        case .left: (x, y) = ("\(travelled)-\(patchWidth)", "\(middleY)")
        case .right: (x, y) = ("\(width)-\(travelled)", "\(middleY)")
        case .top: (x, y) = ("\(middleX)", "\(travelled)-\(patchHeight)")
        case .bottom: (x, y) = ("\(middleX)", "\(height)-\(travelled)")
        }
        let video = directory.appendingPathComponent("crossing.nut").path
        let made = try TestFiles.run("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=c=0x707070:s=\(width)x\(height):r=30", "-i", dataset.path(of: image),
            "-filter_complex",
            "[1]crop=\(patch.width):\(patch.height):\(patch.x):\(patch.y),scale=\(patchWidth):\(patchHeight)[face];"
                + "[0][face]overlay=x='\(x)':y='\(y)':eval=frame"
                + (creeping ? ",lutyuv=y='val*0.3':u='128+(val-128)*0.3':v='128+(val-128)*0.3',noise=c0s=8:c0f=t" : ""),
            "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", "-c:v", "rawvideo", video,
        ])
        try #require(made.status == 0, "ffmpeg: \(made.output)")
        let pictures = try TestFrame.decodeVideo(video)
        try #require(pictures.count == frames)
        let labels = (0..<frames).map { n in
            let at = place(n)
            return PixelRect(x: at.x + face.x, y: at.y + face.y, width: face.width, height: face.height)
        }
        return Crossing(frames: pictures, labels: labels)
    }

    /// The frames of `crossing` through a live delay line with no lookback; each released
    /// frame's masked boxes.
    static func masks(of crossing: Crossing, guardsEdges: Bool) throws -> [[PixelRect]] {
        let first = crossing.frames[0]
        let masker = try DelayLineMasker(
            width: first.width, height: first.height, settings: .init(lookbackMs: 0, guardsEdges: guardsEdges),
            makeDetectors: { [try FaceNetDetector()] })
        var released: [[PixelRect]] = []
        let collect = { (frame: MaskedFrame) in released.append(frame.maskedBoxes) }
        for (index, picture) in crossing.frames.enumerated() {
            try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect)
            usleep(10_000)
        }
        try masker.finish(emit: collect)
        return released
    }

    /// Frames in which less than 85% of what shows of the face is masked.
    static func exposedFrames(_ crossing: Crossing, _ released: [[PixelRect]]) -> [Int] {
        released.indices.filter { index in
            let shown = crossing.labels[index].clamped(toWidth: crossing.frames[index].width, height: crossing.frames[index].height)
            return shown.width >= 2 && shown.height >= 2 && coverage(of: shown, by: released[index]) < 0.85
        }
    }

    @Test("with no lookback, a face walking in or out at each edge is masked in every frame it shows",
          arguments: PrivacyEdgeTests.Edge.allCases, [false, true])
    func crossingFaceIsMaskedInEveryFrame(edge: PrivacyEdgeTests.Edge, leaving: Bool) throws {
        let dataset = try FaceDataset()
        let faces = try PrivacyEdgeTests.wholeFaces(count: 2, dataset: dataset)
        try #require(faces.count == 2)
        for face in faces {
            let crossing = try Self.crossing(face.image, label: face.label, edge: edge, leaving: leaving, dataset: dataset)
            let released = try Self.masks(of: crossing, guardsEdges: true)
            #expect(released.count == crossing.frames.count)
            let exposed = Self.exposedFrames(crossing, released)
            #expect(exposed.isEmpty, "\(face.image) \(leaving ? "leaving" : "coming in") at the \(edge) edge: frames \(exposed) exposed")
        }
    }

    @Test("with no lookback, a face creeping in at under a pixel a frame in a dark room is masked in every frame it shows",
          arguments: [PrivacyEdgeTests.Edge.bottom, .left])
    func creepingFaceIsMaskedInEveryFrame(edge: PrivacyEdgeTests.Edge) throws {
        let dataset = try FaceDataset()
        let faces = try PrivacyEdgeTests.wholeFaces(count: 2, dataset: dataset)
        try #require(faces.count == 2)
        for face in faces {
            let crossing = try Self.crossing(face.image, label: face.label, edge: edge, leaving: false, creeping: true, dataset: dataset)
            let released = try Self.masks(of: crossing, guardsEdges: true)
            #expect(released.count == crossing.frames.count)
            let exposed = Self.exposedFrames(crossing, released)
            #expect(exposed.isEmpty, "\(face.image) creeping in at the \(edge) edge: frames \(exposed) exposed")
        }
    }

    @Test("the guard masks nothing where nothing crosses an edge")
    func stillPictureIsNotGuarded() throws {
        let picture = stripedFrame(width: 640, height: 360)
        let crossing = Crossing(frames: Array(repeating: picture, count: 10), labels: [])
        let released = try Self.masks(of: crossing, guardsEdges: true)
        #expect(released.count == 10)
        #expect(released.allSatisfy { $0.isEmpty }, "\(released)")
    }

    @Test("sensor noise in a dark 720p room (about 6 grey levels), the picture otherwise still, is nothing crossing an edge")
    func noisyDarkPictureIsNotGuarded() throws {
        let video = try TestFiles.makeDirectory("edge-guard-noise").appendingPathComponent("noise.nut").path
        let made = try TestFiles.run("/usr/bin/ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30", "-vf",
            "trim=end_frame=1,loop=loop=59:size=1,setpts=N/30/TB,lutyuv=y='val*0.3':u='128+(val-128)*0.3':v='128+(val-128)*0.3',noise=c0s=10:c0f=t",
            "-frames:v", "60", "-pix_fmt", "yuv420p", "-c:v", "rawvideo", video,
        ])
        try #require(made.status == 0, "ffmpeg: \(made.output)")
        let frames = try TestFrame.decodeVideo(video)
        try #require(frames.count == 60)
        let released = try Self.masks(of: Crossing(frames: frames, labels: []), guardsEdges: true)
        #expect(released.count == 60)
        #expect(released.allSatisfy { $0.isEmpty }, "\(released.enumerated().filter { !$0.element.isEmpty }.prefix(3))")
    }

    @Test("a band stays masked after the crossing stops, until a search of a later frame looked past that edge over it")
    func bandHeldUntilASearchLookedPastTheEdge() {
        var watch = EdgeWatch(frameWidth: 1920, frameHeight: 1080)
        let rightBand = PixelRect(x: 1850, y: 700, width: 70, height: 120)
        var bands = [rightBand]
        watch.update(frame: 10, captureMs: 330, bands: &bands)
        #expect(bands == [rightBand])
        // The person stopped: no change at the edge in frame 11, yet the band stays.
        bands = []
        watch.update(frame: 11, captureMs: 363, bands: &bands)
        #expect(bands == [rightBand])
        // Searches that cannot have seen a face cut by the right edge end nothing: the whole
        // frame exactly, a region inside the frame, a window past the left edge, an empty one.
        watch.searched(frame: 11, region: PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        watch.searched(frame: 11, region: PixelRect(x: 1000, y: 500, width: 900, height: 500))
        watch.searched(frame: 11, region: PixelRect(x: -115, y: 432, width: 1152, height: 648))
        watch.searched(frame: 11, region: PixelRect(x: 0, y: 0, width: 0, height: 0))
        // Nor does a search past the right edge of a frame before the last change.
        let rightBottomWindow = PixelRect(x: 883, y: 432, width: 1152, height: 648)
        watch.searched(frame: 9, region: rightBottomWindow)
        bands = []
        watch.update(frame: 12, captureMs: 396, bands: &bands)
        #expect(bands == [rightBand])
        // The right-bottom window of a frame after the change ends it.
        watch.searched(frame: 11, region: rightBottomWindow)
        bands = []
        watch.update(frame: 13, captureMs: 429, bands: &bands)
        #expect(bands.isEmpty)
    }

    @Test("each frame's band is held on its own: a search past the edge ends the older ones while the crossing goes on; none outlives the longest hold")
    func bandsEndOneByOne() {
        var watch = EdgeWatch(frameWidth: 1280, frameHeight: 720)
        let (first, second, inside) = (
            PixelRect(x: 0, y: 100, width: 60, height: 60), PixelRect(x: 0, y: 150, width: 60, height: 60),
            PixelRect(x: 0, y: 160, width: 40, height: 40))
        var bands = [first]
        watch.update(frame: 1, captureMs: 0, bands: &bands)
        bands = [second]
        watch.update(frame: 2, captureMs: 33, bands: &bands)
        #expect(bands == [first, second])
        // A band inside one held renews it rather than adding another.
        bands = [inside]
        watch.update(frame: 3, captureMs: 66, bands: &bands)
        #expect(bands == [first, second])
        // The left window of frame 1 looked past the left edge over the first band only.
        watch.searched(frame: 1, region: PixelRect(x: -77, y: 0, width: 768, height: 432))
        bands = []
        watch.update(frame: 4, captureMs: 99, bands: &bands)
        #expect(bands == [second])
        bands = []
        watch.update(frame: 5, captureMs: 66 + EdgeWatch.longestHoldMs, bands: &bands)
        #expect(bands == [second])
        bands = []
        watch.update(frame: 6, captureMs: 67 + EdgeWatch.longestHoldMs, bands: &bands)
        #expect(bands.isEmpty)
    }
}
