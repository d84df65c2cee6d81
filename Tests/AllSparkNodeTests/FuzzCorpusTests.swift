import Foundation
import Testing

/// Every fuzz target over its seeds and the inputs of past findings, in this (debug) build
/// (`FuzzTargets` here is a link to Tests/Fuzz's sources): what libFuzzer starts from must
/// hold the targets' checks (a failed one traps), and the targets compile with the node.
/// Mutating inputs under AddressSanitizer is `scripts/fuzz.sh`'s work (a build of its own).
@Suite("Fuzz targets hold on their corpora", .serialized)
struct FuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    private static func inputs(of target: String, in folder: String) throws -> [URL] {
        let directory = fuzz.appendingPathComponent("\(folder)/\(target)")
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("every target has seeds, every seed folder a target, and no two targets share a name")
    func everyTargetHasSeeds() throws {
        let names = FuzzTargets.all.map(\.name)
        #expect(Set(names).count == names.count)
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.fuzz.appendingPathComponent("seeds").path)
        #expect(Set(folders) == Set(names))
        let regressions = try FileManager.default.contentsOfDirectory(atPath: Self.fuzz.appendingPathComponent("regressions").path)
        #expect(Set(regressions).isSubset(of: Set(names)), "a regressions folder without its target")
    }

    @Test("each target runs over its seeds and past findings", arguments: FuzzTargets.all.map(\.name))
    func targetHoldsOnItsCorpus(name: String) throws {
        let target = try #require(FuzzTargets.all.first { $0.name == name })
        let inputs = try Self.inputs(of: name, in: "seeds") + Self.inputs(of: name, in: "regressions")
        #expect(!inputs.isEmpty)
        for input in inputs {
            target.run(Array(try Data(contentsOf: input)))
        }
        target.run([])
        // The scratch files of the targets that read paths (one folder for the process).
        for file in try FileManager.default.contentsOfDirectory(atPath: FuzzScratch.directory) {
            try FileManager.default.removeItem(atPath: "\(FuzzScratch.directory)/\(file)")
        }
    }
}
