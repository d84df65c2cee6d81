/// Hysteresis for masks: a box stays masked for `holdFrames` frames after its face was
/// last detected, because cascades miss a moving face in some frames (frontal alone finds
/// the Carphone face in only 76 of 120 frames).
///
/// A detection that overlaps a held box (IoU ≥ `matchThreshold`) replaces it, so the mask
/// follows the face; several detections of one face in one frame merge into their union.
/// A held box does not move while its face goes undetected.
struct MaskHold {
    struct Track: Equatable {
        var box: PixelRect
        var lastSeenFrame: Int
    }

    let holdFrames: Int
    let matchThreshold: Double
    private(set) var tracks: [Track] = []
    private var frameNumber = 0

    init(holdFrames: Int, matchThreshold: Double = 0.3, expectedTracks: Int = 64) {
        self.holdFrames = holdFrames
        self.matchThreshold = matchThreshold
        tracks.reserveCapacity(expectedTracks)
    }

    /// Takes one frame's detections and returns how many matched no held box (new faces).
    mutating func advance(seeing detections: [PixelRect]) -> Int {
        frameNumber += 1
        var newFaces = 0
        for detection in detections {
            guard let index = bestMatch(for: detection) else {
                tracks.append(Track(box: detection, lastSeenFrame: frameNumber))
                newFaces += 1
                continue
            }
            if tracks[index].lastSeenFrame == frameNumber {
                tracks[index].box = tracks[index].box.union(detection)
            } else {
                tracks[index] = Track(box: detection, lastSeenFrame: frameNumber)
            }
        }
        let current = frameNumber
        let hold = holdFrames
        tracks.removeAll { current - $0.lastSeenFrame > hold }
        return newFaces
    }

    private func bestMatch(for detection: PixelRect) -> Int? {
        var best: Int?
        var bestOverlap = matchThreshold
        for index in tracks.indices {
            let overlap = tracks[index].box.intersectionOverUnion(detection)
            if overlap >= bestOverlap {
                best = index
                bestOverlap = overlap
            }
        }
        return best
    }
}
