import AllSparkNode
import ArgumentParser
import Foundation

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the media signatures (ONVIF Media Signing) of chunks and clips, offline: valid, invalid or unsigned per file.",
        discussion: """
            Without --certificate a file is checked against the certificate it carries (which says who signed it, \
            unchecked); with it, the signing certificate must chain up to one of the trust anchors in that PEM file \
            (a node's own anchor: `allspark-node signing show --anchor` or GET /api/signing/anchor; a fleet's CA \
            certificate), or be one of its certificates. Footage signed by other ONVIF Media Signing signers is read \
            too. Exits 1 when any file is invalid or has GOPs missing, 2 when a file cannot be read.
            """)

    @Argument(help: "A chunk, a clip, or a directory (its .mp4 and .mov files).")
    var path: String
    @Option(help: "Trust anchors (CA certificates) or signing certificates to check against: one PEM file, one or several certificates.")
    var certificate: String?
    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let trusted = try certificate.map { try TextFile.read($0) }
        var reports: [SignedFootageReport] = []
        var unreadable = false
        for file in try files() {
            do {
                reports.append(try MediaSigningVerifier.verify(path: file, trustedPEM: trusted))
            } catch {
                unreadable = true
                FileHandle.standardError.write(Data("\(file): cannot be read: \(error)\n".utf8))
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(reports), as: UTF8.self))
        } else {
            reports.forEach(printText)
        }
        if reports.contains(where: { $0.status == .invalid }) { throw ExitCode(1) }
        if unreadable { throw ExitCode(2) }
    }

    private func files() throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw ValidationError("\(path) does not exist") }
        guard isDirectory.boolValue else { return [path] }
        return try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { !$0.hasPrefix(".") && ($0.hasSuffix(".mp4") || $0.hasSuffix(".mov")) }
            .sorted()
            .map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
    }

    private func printText(_ report: SignedFootageReport) {
        func time(_ ms: Int64?) -> String { ms.map(WallClock.iso8601(ms:)) ?? "?" }
        print("\(report.file): \(report.status.rawValue)")
        guard report.status != .unsigned else { return }
        print("  signed GOPs: \(report.validGOPs) valid of \(report.signedGOPs); frames: \(report.frames)")
        if report.firstSignedMs != nil { print("  signed from \(time(report.firstSignedMs)) to \(time(report.lastSignedMs))") }
        if let subject = report.certificateSubject {
            print("  signing certificate: \(subject), SHA-256 \(report.certificateFingerprint ?? "?")")
        }
        switch report.trust {
        case .anchor?: print("  trusted through the anchor \(report.anchorSubject ?? "?"), SHA-256 \(report.anchorFingerprint ?? "?")")
        case .signingCertificate?: print("  trusted: it is one of the given certificates")
        case .embedded?: print("  not checked against any anchor (give one with --certificate)")
        case nil: break
        }
        for problem in report.problems {
            let counter = problem.counter.map { "GOP \($0)" } ?? "file"
            print("  \(problem.kind.rawValue): \(counter) \(time(problem.startMs)) – \(time(problem.endMs)): \(problem.reason)")
        }
        if report.unsignedTailSlices > 0 { print("  unsigned tail: \(report.unsignedTailSlices) slices after the last signature") }
        if report.unsignedHeadSlices > 0 { print("  unsigned head: \(report.unsignedHeadSlices) slices before the first signature") }
    }
}
