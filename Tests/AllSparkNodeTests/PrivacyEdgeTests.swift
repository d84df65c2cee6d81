import Foundation
import Testing

@testable import AllSparkNode

/// Faces cut by the frame's edges, with CenterFace (the model `scripts/setup.sh` installs)
/// and the dev photos of `../shared/faces`.
@Suite("Privacy: faces at the frame's edges", .serialized)
struct PrivacyEdgeTests {
    enum Edge: CaseIterable { case left, right, top, bottom }

    /// A dev photo cropped so that `outside` of its face's label box lies beyond `edge`, and
    /// where the visible part of the face is in the cropped picture.
    struct CutFace {
        let picture: TestFrame
        let visible: PixelRect
    }

    static func cut(_ image: String, label: PixelRect, at edge: Edge, outside: Double, dataset: FaceDataset) throws -> CutFace {
        let whole = try TestFrame.decode(dataset.path(of: image))
        let even = { (value: Int) in value & ~1 }
        let crop: PixelRect
        switch edge {
        case .left:
            let x = even(label.x + Int(Double(label.width) * outside))
            crop = PixelRect(x: x, y: 0, width: even(whole.width - x), height: even(whole.height))
        case .right:
            crop = PixelRect(x: 0, y: 0, width: even(label.maxX - Int(Double(label.width) * outside)), height: even(whole.height))
        case .top:
            let y = even(label.y + Int(Double(label.height) * outside))
            crop = PixelRect(x: 0, y: y, width: even(whole.width), height: even(whole.height - y))
        case .bottom:
            crop = PixelRect(x: 0, y: 0, width: even(whole.width), height: even(label.maxY - Int(Double(label.height) * outside)))
        }
        let picture = try TestFrame.decode(
            dataset.path(of: image), filter: "crop=\(crop.width):\(crop.height):\(crop.x):\(crop.y)")
        let visible = PixelRect(x: label.x - crop.x, y: label.y - crop.y, width: label.width, height: label.height)
            .clamped(toWidth: picture.width, height: picture.height)
        return CutFace(picture: picture, visible: visible)
    }

    /// Single-face photos whose face, 80 px or wider, the net finds whole: what is tested
    /// here is the cut, not the photo. The first ones in name order, so every run agrees.
    static func wholeFaces(count: Int, dataset: FaceDataset) throws -> [(image: String, label: PixelRect)] {
        let net = try FaceNetDetector()
        var chosen: [(String, PixelRect)] = []
        for image in dataset.images(where: { $0.count == 1 && $0[0].width >= 80 }) where chosen.count < count {
            let label = dataset.labels[image]![0]
            let found = try TestFrame.decode(dataset.path(of: image)).faces(using: net)
            if found.contains(where: { $0.intersectionOverUnion(label) >= 0.5 }) { chosen.append((image, label)) }
        }
        return chosen
    }

    /// Pushes `frames` copies of `picture` through a live delay line searching with the
    /// net; returns each released frame's masked boxes.
    static func masks(of picture: TestFrame, frames: Int, settings: DelayLineMasker.Settings = .init()) throws -> [[PixelRect]] {
        let masker = try DelayLineMasker(
            width: picture.width, height: picture.height, settings: settings, makeDetectors: { [try FaceNetDetector()] })
        var released: [[PixelRect]] = []
        let collect = { (frame: MaskedFrame) in released.append(frame.maskedBoxes) }
        for index in 0..<frames {
            try masker.push(picture.frame, captureTimeMs: Int64(index) * 33, emit: collect)
            usleep(10_000)
        }
        try masker.finish(emit: collect)
        return released
    }

    @Test("a face 45% outside each of the four edges is found and masked", arguments: Edge.allCases)
    func faceCutByAnEdgeIsMasked(edge: Edge) throws {
        let dataset = try FaceDataset()
        let faces = try Self.wholeFaces(count: 6, dataset: dataset)
        try #require(faces.count == 6)
        var exposed: [String] = []
        for face in faces {
            let cut = try Self.cut(face.image, label: face.label, at: edge, outside: 0.45, dataset: dataset)
            let released = try Self.masks(of: cut.picture, frames: 4)
            #expect(released.count == 4)
            if released.contains(where: { coverage(of: cut.visible, by: $0) < 0.85 }) {
                exposed.append("\(face.image) visible \(cut.visible) masks \(released.map { $0.description })")
            }
        }
        #expect(exposed.isEmpty, "\(edge): \(exposed.count) of \(faces.count) cut faces not masked: \(exposed)")
    }

    /// Three quarters of a `width` x `height` frame towards `edge`, reaching a tenth past it,
    /// as an edge window does.
    static func regionReaching(_ edge: Edge, width: Int, height: Int) -> PixelRect {
        let (w, h) = (width * 3 / 4 + width / 10, height * 3 / 4 + height / 10)
        switch edge {
        case .left: return PixelRect(x: -width / 10, y: 0, width: w, height: height)
        case .right: return PixelRect(x: width / 4, y: 0, width: w, height: height)
        case .top: return PixelRect(x: 0, y: -height / 10, width: width, height: h)
        case .bottom: return PixelRect(x: 0, y: height / 4, width: width, height: h)
        }
    }

    @Test("a search reaching past an edge finds the cut face whatever the net searched before", arguments: Edge.allCases)
    func searchPastAnEdgeDoesNotDependOnEarlierSearches(edge: Edge) throws {
        let dataset = try FaceDataset()
        let faces = try Self.wholeFaces(count: 4, dataset: dataset)
        try #require(faces.count == 4)
        let opposite: [Edge: Edge] = [.left: .right, .right: .left, .top: .bottom, .bottom: .top]
        for face in faces {
            let cut = try Self.cut(face.image, label: face.label, at: edge, outside: 0.5, dataset: dataset)
            let (width, height) = (cut.picture.width, cut.picture.height)
            let region = Self.regionReaching(edge, width: width, height: height)
            let net = try FaceNetDetector()
            var first: [PixelRect] = []
            try net.detect(in: cut.picture.frame, within: region, appendingTo: &first)
            // Other searches leave other pictures in the net's scratch buffers.
            var elsewhere: [PixelRect] = []
            try net.detect(in: cut.picture.frame, within: Self.regionReaching(opposite[edge]!, width: width, height: height), appendingTo: &elsewhere)
            try net.detect(in: cut.picture.frame, appendingTo: &elsewhere)
            var again: [PixelRect] = []
            try net.detect(in: cut.picture.frame, within: region, appendingTo: &again)
            #expect(again == first, "\(face.image) past the \(edge) edge: \(first) first, \(again) after other searches")
            #expect(again.contains { coverage(of: cut.visible, by: [$0]) >= 0.5 }, "\(face.image): \(cut.visible) not found in \(again)")
        }
    }

    @Test("a half face standing at the left edge stays masked in every frame of its stay")
    func halfFaceStandingAtTheEdgeStaysMasked() throws {
        let dataset = try FaceDataset()
        let face = try #require(try Self.wholeFaces(count: 1, dataset: dataset).first)
        let cut = try Self.cut(face.image, label: face.label, at: .left, outside: 0.5, dataset: dataset)
        let released = try Self.masks(of: cut.picture, frames: 60)
        #expect(released.count == 60)
        let uncovered = released.indices.filter { coverage(of: cut.visible, by: released[$0]) < 0.85 }
        #expect(uncovered.isEmpty, "frames not covering \(cut.visible): \(uncovered)")
    }
}
