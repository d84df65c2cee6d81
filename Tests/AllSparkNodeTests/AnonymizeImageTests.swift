import Foundation
import Testing

@testable import AllSparkNode

@Suite("anonymize: images and folders", .serialized)
struct AnonymizeImageTests {
    @Test("PNG to PNG: exactly the pixels inside the logged boxes change, and they cover the face")
    func onlyTheLoggedBoxesChange() throws {
        let face = try LargeFace.find()
        let directory = try TestFiles.makeDirectory("anonymize-png")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("face.png")
        let output = directory.appendingPathComponent("masked.png")
        let boxesFile = directory.appendingPathComponent("boxes.jsonl")
        let converted = try TestFiles.run("/usr/bin/ffmpeg", ["-v", "error", "-i", face.path, "-pix_fmt", "rgb24", input.path])
        try #require(converted.status == 0, "\(converted.output)")

        let result = try AnonymizeRun.run([input.path, output.path, "--boxes", boxesFile.path])

        try #require(result.status == 0, "\(result.output)")
        let lines = try AnonymizeRun.readBoxes(boxesFile)
        try #require(lines.count == 1)
        #expect(lines[0].source == "face.png")
        let boxes = lines[0].boxes
        try #require(!boxes.isEmpty)
        #expect(coverage(of: face.label, by: boxes) >= 0.9, "label \(face.label), masked \(boxes)")

        let before = try RGBImage.decode(input.path)
        let after = try RGBImage.decode(output.path)
        try #require(before.width == after.width && before.height == after.height)
        var changedOutside = 0
        var insideTotal = 0
        var changedInside = 0
        for y in 0..<before.height {
            for x in 0..<before.width {
                let changed = before.pixel(x, y) != after.pixel(x, y)
                if boxes.contains(where: { $0.contains(x: x, y: y) }) {
                    insideTotal += 1
                    changedInside += changed ? 1 : 0
                } else if changed {
                    changedOutside += 1
                }
            }
        }
        #expect(changedOutside == 0, "pixels changed outside the logged boxes")
        // A mosaic replaces nearly every pixel of a photo with its block's mean.
        #expect(Double(changedInside) > 0.8 * Double(insideTotal), "\(changedInside) of \(insideTotal) changed inside")
    }

    @Test("JPEG to JPEG: the face loses its detail; the rest stays within re-encoding noise")
    func jpegOutputMasksTheFace() throws {
        let face = try LargeFace.find()
        let directory = try TestFiles.makeDirectory("anonymize-jpg")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("masked.jpg")
        let boxesFile = directory.appendingPathComponent("boxes.jsonl")

        let result = try AnonymizeRun.run([face.path, output.path, "--mask", "fill", "--boxes", boxesFile.path])

        try #require(result.status == 0, "\(result.output)")
        let boxes = try #require(try AnonymizeRun.readBoxes(boxesFile).first).boxes
        let before = try TestFrame.decode(face.path)
        let after = try TestFrame.decode(output.path)
        try #require(before.width == after.width && before.height == after.height)
        // Filled with video black: the whole label box is flat and dark.
        let label = face.label
        #expect(after.differingPairShare(in: label) < 0.05)
        #expect(after.luma(label.x + label.width / 2, label.y + label.height / 2) < 40)
        // Away from the boxes (8 px, past JPEG's blocks), only re-encoding noise.
        let nearBoxes = boxes.map { PixelRect(x: $0.x - 8, y: $0.y - 8, width: $0.width + 16, height: $0.height + 16) }
        var difference = 0
        var compared = 0
        for y in 0..<before.height {
            for x in 0..<before.width where !nearBoxes.contains(where: { $0.contains(x: x, y: y) }) {
                difference += abs(Int(before.luma(x, y)) - Int(after.luma(x, y)))
                compared += 1
            }
        }
        try #require(compared > 0)
        #expect(Double(difference) / Double(compared) < 2, "mean luma change outside the boxes")
    }

    @Test("a folder: same file names out, a broken image skipped with a message, non-images ignored")
    func folderSkipsBrokenImages() throws {
        let dataset = try FaceDataset()
        let picks = dataset.images { $0.count == 1 }.prefix(2)
        try #require(picks.count == 2)
        let directory = try TestFiles.makeDirectory("anonymize-folder")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        let output = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for name in picks {
            try FileManager.default.copyItem(atPath: dataset.path(of: name), toPath: input.appendingPathComponent(name).path)
        }
        try Data("not a jpeg at all".utf8).write(to: input.appendingPathComponent("broken.jpg"))
        try Data("notes".utf8).write(to: input.appendingPathComponent("notes.txt"))
        let boxesFile = directory.appendingPathComponent("boxes.jsonl")

        let result = try AnonymizeRun.run([input.path, output.path, "--boxes", boxesFile.path])

        #expect(result.status != 0, "a skipped image makes the run fail")
        #expect(result.output.contains("skipped broken.jpg"), "\(result.output)")
        #expect(TestFiles.fileNames(in: output) == Array(picks).sorted())
        let lines = try AnonymizeRun.readBoxes(boxesFile)
        #expect(lines.map(\.source) == Array(picks).sorted())
        for name in picks {
            let written = try TestFrame.decode(output.appendingPathComponent(name).path)
            let original = try TestFrame.decode(dataset.path(of: name))
            #expect(written.width == original.width && written.height == original.height)
        }
    }

    @Test("missing input, empty folder, wrong output kind: a clear error and a failing status")
    func refusesUnsuitablePaths() throws {
        let directory = try TestFiles.makeDirectory("anonymize-errors")
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try AnonymizeRun.run([directory.appendingPathComponent("nothing.mp4").path, directory.appendingPathComponent("o.mp4").path])
        #expect(missing.status != 0 && missing.output.contains("no file or folder at"), "\(missing.output)")

        let empty = directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let emptyRun = try AnonymizeRun.run([empty.path, directory.appendingPathComponent("out").path])
        #expect(emptyRun.status != 0 && emptyRun.output.contains("no images"), "\(emptyRun.output)")

        let face = try #require(try FaceDataset().images { !$0.isEmpty }.first)
        let wrongKind = try AnonymizeRun.run([try FaceDataset().path(of: face), directory.appendingPathComponent("o.mp4").path])
        #expect(wrongKind.status != 0 && wrongKind.output.contains("an image is written as"), "\(wrongKind.output)")

        let unreadable = directory.appendingPathComponent("broken.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2]).write(to: unreadable)
        let unreadableRun = try AnonymizeRun.run([unreadable.path, directory.appendingPathComponent("o.png").path])
        #expect(unreadableRun.status != 0 && unreadableRun.output.contains("cannot read image"), "\(unreadableRun.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("o.png").path))
    }
}
