import Testing

@testable import AllSparkNode

@Suite("Privacy: holding masks between detections")
struct PrivacyHysteresisTests {
    @Test func faceBoxStaysMaskedForHoldFramesThenIsReleased() throws {
        let face = try LargeFace.find()
        let facePicture = try TestFrame.decode(face.path)
        let (width, height) = (facePicture.width, facePicture.height)
        let holdFrames = 3
        let masker = try FaceMasker(settings: FaceMasker.Settings(holdFrames: holdFrames))

        masker.mask(facePicture.frame, captureTimeMs: 0)
        let faceBoxes = masker.lastMaskedBoxes
        try #require(!faceBoxes.isEmpty)

        // The detector finds nothing in the stripes: any mask there comes from the hold.
        var found: [PixelRect] = []
        let striped = stripedFrame(width: width, height: height)
        try withExtendedLifetime(striped) { try CascadeFaceDetector().detect(in: striped.frame, appendingTo: &found) }
        try #require(found.isEmpty)

        for frameNumber in 1...holdFrames {
            let stripes = stripedFrame(width: width, height: height)
            let before = stripes.bytes
            let detailBefore = faceBoxes.map(stripes.detailEnergy(in:))

            masker.mask(stripes.frame, captureTimeMs: Int64(frameNumber * 33))

            #expect(masker.lastMaskedBoxes == faceBoxes, "frame \(frameNumber)")
            #expect(stripes.changesOutside(faceBoxes, comparedTo: before) == 0)
            for (box, detail) in zip(faceBoxes, detailBefore) {
                #expect(Double(stripes.detailEnergy(in: box)) < 0.1 * Double(detail), "frame \(frameNumber) \(box)")
            }
        }

        let released = stripedFrame(width: width, height: height)
        let before = released.bytes
        masker.mask(released.frame, captureTimeMs: Int64((holdFrames + 1) * 33))
        #expect(masker.lastMaskedBoxes.isEmpty)
        #expect(released.bytes == before)

        let counters = masker.counters.snapshot()
        #expect(counters.frames == holdFrames + 2)
        #expect(counters.framesWithFaces == holdFrames + 1)
        #expect(counters.facesAppeared == faceBoxes.count)
        #expect(counters.facesMasked == faceBoxes.count * (holdFrames + 1))
    }

    @Test func redetectionRestartsTheHoldAndMovesTheBox() {
        var hold = MaskHold(holdFrames: 2)
        let first = PixelRect(x: 100, y: 100, width: 60, height: 60)
        let moved = PixelRect(x: 110, y: 104, width: 60, height: 60)
        let elsewhere = PixelRect(x: 400, y: 50, width: 40, height: 40)

        #expect(hold.advance(seeing: [first]) == 1)
        #expect(hold.advance(seeing: []) == 0)
        #expect(hold.advance(seeing: [moved]) == 0, "an overlapping detection is the same face")
        #expect(hold.tracks.map(\.box) == [moved])
        #expect(hold.advance(seeing: [elsewhere]) == 1)
        #expect(hold.advance(seeing: []) == 0)
        #expect(hold.tracks.map(\.box) == [moved, elsewhere], "moved was seen 2 frames ago")
        #expect(hold.advance(seeing: []) == 0)
        #expect(hold.tracks.map(\.box) == [elsewhere])
        #expect(hold.advance(seeing: []) == 0)
        #expect(hold.tracks.isEmpty)
    }

    @Test func detectionsOfOneFaceInOneFrameMerge() {
        var hold = MaskHold(holdFrames: 8)
        let frontal = PixelRect(x: 100, y: 100, width: 60, height: 60)
        let profile = PixelRect(x: 90, y: 95, width: 64, height: 64)
        #expect(hold.advance(seeing: [frontal, profile]) == 1)
        #expect(hold.tracks.map(\.box) == [frontal.union(profile)])
    }
}
