import CFFmpeg
import Foundation
import Logging
import Testing
import X509
@testable import AllSparkNode

/// Signed footage (ONVIF Media Signing): the node's key file, and chunks recorded by the
/// real recorder checked by `MediaSigningVerifier`, untouched and tampered with.
@Suite(.serialized)
struct MediaSigningTests {
    struct Recording: Sendable {
        let store: URL
        let chunks: [String]
        let records: [ChunkRecord]
        let identity: MediaSigningIdentity
    }

    /// One recording shared by the tests: 5 s of the test pattern in 2 s chunks, signed.
    private actor SharedRecording {
        private var recording: Recording?

        func get() async throws -> Recording {
            if let recording { return recording }
            let store = try TestFiles.makeDirectory("signing")
            let source = try SigningIdentitySource(
                storeDirectory: store.path, configuredCertificate: "", nodeName: "signing-test", logger: Logger(label: "test"))
            let identity = try #require(source.identity)
            let video = try TestFiles.makeTestVideo(seconds: 5)
            let harness = try RecorderHarness(
                config: RecorderHarness.config(source: video.path, store: store, chunkMs: 2000), storeDirectory: store, signing: source)
            try await harness.run()
            let records = harness.savedChunks
            let made = Recording(
                store: store, chunks: records.map { store.appendingPathComponent($0.fileName).path }, records: records, identity: identity)
            recording = made
            return made
        }
    }

    private static let shared = SharedRecording()

    private func recorded() async throws -> Recording {
        let recording = try await Self.shared.get()
        try #require(recording.chunks.count >= 2, "the recording made \(recording.chunks.count) chunks")
        return recording
    }

    /// The chunk's access units as stored (length-prefixed NAL units), in decode order.
    private func accessUnits(_ path: String) throws -> [[UInt8]] {
        let reader = try ChunkReader(path: path)
        var units: [[UInt8]] = []
        reader.forEachPacket { packet in
            units.append(Array(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))))
        }
        return units
    }

    /// The NAL units of a length-prefixed access unit.
    private func nals(_ unit: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        unit.withUnsafeBytes { bytes in
            H264Framing.lengthPrefixed.forEachNAL(in: bytes) { _, nal in
                result.append(Array(nal))
                return true
            }
        }
        return result
    }

    private func unit(_ nals: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for nal in nals {
            bytes.appendBigEndian(UInt64(nal.count), bytes: 4)
            bytes += nal
        }
        return bytes
    }

    private func isSigningSEI(_ nal: [UInt8]) -> Bool {
        nal.withUnsafeBytes { MediaSigningSEI.parse(nal: $0) != nil }
    }

    private func verify(_ units: [[UInt8]], certificate: String? = nil) throws -> SignedFootageReport {
        try MediaSigningVerifier.verify(accessUnits: units, file: "test", trustedPEM: certificate)
    }

    // MARK: Untouched footage

    @Test("every recorded chunk verifies valid on its own: all its GOPs signed, no unsigned tail, its own times")
    func chunksVerify() async throws {
        let recording = try await recorded()
        for chunk in recording.chunks {
            let report = try MediaSigningVerifier.verify(path: chunk)
            #expect(report.status == .valid, "\(chunk): \(report.problems)")
            #expect(report.signedGOPs >= 1 && report.validGOPs == report.signedGOPs)
            #expect(report.unsignedTailSlices == 0 && report.unsignedHeadSlices == 0)
            #expect(report.certificateFingerprint == recording.identity.fingerprint)
            let probe = try StreamTimeProbe.read(path: chunk)
            // A GOP's signed end is the next frame's time: the chunk's last frame's time plus its duration.
            #expect(report.firstSignedMs == probe.firstFrameMs && report.lastSignedMs == probe.lastFrameMs.map { $0 + 33 })
        }
        // The signing SEIs leave the chunk as ordinary for players as before, time stamps included.
        for record in recording.records {
            let times = try #require(TimestampsFile.read(path: recording.store.appendingPathComponent(record.timestampsFileName).path))
            try FinishedChunkCheck.expectFinished(recording.store.appendingPathComponent(record.fileName).path, frameTimesMs: times, fps: 30)
        }
    }

    @Test("an ffmpeg -c copy remux, and chunks joined by ffmpeg's concat demuxer, verify valid")
    func remuxAndJoinVerify() async throws {
        let recording = try await recorded()
        let directory = try TestFiles.makeDirectory("signing-remux")
        let remuxed = directory.appendingPathComponent("remuxed.mov").path
        let copied = try TestFiles.run("/usr/bin/ffmpeg", ["-v", "error", "-i", recording.chunks[0], "-c", "copy", remuxed])
        try #require(copied.status == 0, "\(copied.output)")
        let remuxReport = try MediaSigningVerifier.verify(path: remuxed)
        #expect(remuxReport.status == .valid && remuxReport.validGOPs == remuxReport.signedGOPs, "\(remuxReport.problems)")

        let joined = try concatenate(recording.chunks, in: directory, name: "joined.mp4")
        let joinedReport = try MediaSigningVerifier.verify(path: joined, trustedPEM: recording.identity.anchorPEM)
        #expect(joinedReport.status == .valid, "\(joinedReport.problems)")
        #expect(joinedReport.trust == .anchor && joinedReport.anchorFingerprint == recording.identity.anchorFingerprint)
        let parts = try recording.chunks.map { try MediaSigningVerifier.verify(path: $0) }
        #expect(joinedReport.signedGOPs == parts.reduce(0) { $0 + $1.signedGOPs })
    }

    @Test("a clip cut mid-chunk across chunks (/api/clip's exporter) verifies on its own, its last GOP signed too")
    func clipVerifies() async throws {
        let recording = try await recorded()
        let directory = try TestFiles.makeDirectory("signing-clip")
        let clip = directory.appendingPathComponent("clip.mp4").path
        let start = recording.records[0].startMs + 1200
        let end = recording.records[1].startMs + 1500
        let summary = try ClipExporter.export(
            chunks: Array(recording.records.prefix(2)), storeDirectory: recording.store, startMs: start, endMs: end, to: clip)
        let report = try MediaSigningVerifier.verify(path: clip)
        #expect(report.status == .valid, "\(report.problems)")
        #expect(report.signedGOPs >= 2 && report.validGOPs == report.signedGOPs)
        #expect(report.unsignedTailSlices == 0 && report.unsignedHeadSlices == 0)
        #expect(report.certificateFingerprint == recording.identity.fingerprint)
        #expect(report.firstSignedMs == summary.firstFrameMs)
        // The clip ends where a GOP does: its signed end is the next keyframe's time.
        #expect(report.lastSignedMs.map { (33...34).contains($0 - summary.lastFrameMs) } == true, "\(String(describing: report.lastSignedMs)) \(summary.lastFrameMs)")
    }

    // MARK: Tampering

    @Test("one flipped byte in a slice makes exactly its GOP invalid")
    func flippedByte() async throws {
        var units = try accessUnits(try await recorded().chunks[0])
        // A P-frame well inside the chunk, not carrying a signing SEI (a changed IDR changes
        // every hash of its GOP: each signed part of the GOP would fail).
        let target = try #require(
            (units.count / 2..<units.count).first { index in !nals(units[index]).contains { isSigningSEI($0) || $0[0] & 0x1F == 5 } })
        var parts = nals(units[target])
        let slice = try #require(parts.firstIndex { H264Framing.isSlice($0[0]) })
        parts[slice][parts[slice].count / 2] ^= 0x40
        units[target] = unit(parts)
        let report = try verify(units)
        #expect(report.status == .invalid)
        #expect(report.problems.count == 1 && report.problems.first?.kind == .invalid, "\(report.problems)")
        #expect(report.validGOPs == report.signedGOPs - 1)
    }

    @Test("a dropped frame is caught as missing from its GOP")
    func droppedFrame() async throws {
        var units = try accessUnits(try await recorded().chunks[0])
        // A P-frame: a dropped IDR takes its whole GOP's hashes with it (caught too, as changed).
        let target = try #require(
            (units.count / 2..<units.count).first { index in
                !nals(units[index]).contains { isSigningSEI($0) || $0[0] & 0x1F == 5 }
            })
        units.remove(at: target)
        let report = try verify(units)
        #expect(report.status == .invalid)
        #expect(report.problems.contains { $0.kind == .missing }, "\(report.problems)")
    }

    @Test("a dropped signing SEI is caught as a missing GOP")
    func droppedSEI() async throws {
        var units = try accessUnits(try await recorded().chunks[0])
        let carriers = units.indices.filter { nals(units[$0]).contains(where: isSigningSEI) }
        // Not the first (the certificate) nor the last: a GOP SEI in the middle.
        let target = carriers[carriers.count / 2]
        units[target] = unit(nals(units[target]).filter { !isSigningSEI($0) })
        let report = try verify(units)
        #expect(report.status == .invalid)
        #expect(report.problems.contains { $0.kind == .missing }, "\(report.problems)")
    }

    @Test("two chunks joined in the wrong order are caught")
    func swappedChunks() async throws {
        let recording = try await recorded()
        let units = try accessUnits(recording.chunks[1]) + accessUnits(recording.chunks[0])
        let report = try verify(units)
        #expect(report.status == .invalid, "\(report.problems)")
    }

    @Test("a chunk signed by another node's key is invalid against this node's certificate")
    func anotherKey() async throws {
        let recording = try await recorded()
        let otherStore = try TestFiles.makeDirectory("signing-other")
        let other = try MediaSigningIdentity.load(storeDirectory: otherStore.path, configuredCertificate: "", nodeName: "other")
        let chunk = recording.chunks[0]
        #expect(try MediaSigningVerifier.verify(path: chunk, trustedPEM: recording.identity.anchorPEM).status == .valid)
        let report = try MediaSigningVerifier.verify(path: chunk, trustedPEM: other.anchorPEM)
        #expect(report.status == .invalid)
        #expect(report.problems.contains { $0.reason.contains("do not vouch for") }, "\(report.problems)")
    }

    @Test("unsigned footage says so")
    func unsignedFootage() throws {
        let video = try TestFiles.makeTestVideo(seconds: 1)
        #expect(try MediaSigningVerifier.verify(path: video.path).status == .unsigned)
    }

    @Test("a chunk ending on a keyframe whose frame already carries a GOP's SEI keeps every SEI in counter order")
    func chunkEndingOnAKeyframe() throws {
        let store = try TestFiles.makeDirectory("signing-order")
        let identity = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "order-test")
        let signer = MediaSigner(identity: identity)
        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&packet) }
        var written: [[UInt8]] = []
        func keep(_ output: UnsafeMutablePointer<AVPacket>?) {
            guard let output else { return }
            written.append(Array(UnsafeRawBufferPointer(start: output.pointee.data, count: Int(output.pointee.size))))
        }
        // Three keyframes, each its own GOP, 1 s apart (a time stamp SEI ahead of each slice, as
        // the recorder has it). The pause lets the first GOP's SEI be signed before the third
        // frame passes, so it rides in that frame, which then also gets the rest at the chunk's
        // end: the case a stopped node's last chunk hit. A busy machine may sign later, when
        // the SEIs simply all go in at the end.
        for index in 0..<3 {
            if index == 2 { Thread.sleep(forTimeInterval: 0.2) }
            let frame = unit([[0x06, 0x05, 0x01, 0x00, 0x80], [0x65, 0x88, 0x84, UInt8(index), 0x10, 0x20]])
            av_packet_unref(packet)
            try checkLibav(av_new_packet(packet, Int32(frame.count)), "allocating")
            frame.withUnsafeBytes { packet!.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: frame.count) }
            packet!.pointee.pts = Int64(index) * 1000
            keep(try signer.pass(packet!, captureMicroseconds: 1_790_000_000_000_000 + Int64(index) * 1_000_000, startsChunk: index == 0))
        }
        keep(try signer.finishChunk())
        #expect(written.count == 3)
        let counters = written.flatMap(nals).compactMap { nal in nal.withUnsafeBytes { MediaSigningSEI.parse(nal: $0)?.gopInfo?.counter } }
        #expect(counters == [1, 2, 3], "the reference's first GOP SEI carries counter 1")
        // The reference's linked hash: zeros first, then the previous GOP's first hash.
        let documents = written.flatMap(nals).compactMap { nal in nal.withUnsafeBytes { MediaSigningSEI.parse(nal: $0) } }.filter { !$0.isSentOnce }
        #expect(documents.count == 3 && documents[0].gopInfo?.linkedHash == [UInt8](repeating: 0, count: 32))
        for (previous, next) in zip(documents, documents.dropFirst()) {
            #expect(next.gopInfo?.linkedHash == previous.hashList.map { Array($0.prefix(32)) })
        }
        let report = try verify(written)
        #expect(report.status == .valid && report.validGOPs == 3, "\(report.problems)")
        // Every signing SEI sits ahead of the frame's time stamp SEI (GStreamer's reading order),
        // but those the chunk's last frame gets at its end: behind its picture, which they sign,
        // with the time stamp repeated last (h264parse hands on an access unit's last SEI first).
        for frame in written.dropLast() {
            let types = nals(frame).map { isSigningSEI($0) ? "signing" : $0[0] & 0x1F == 6 ? "sei" : "slice" }
            #expect(types.last == "slice" && types.dropLast().last == "sei", "\(types)")
        }
        let last = nals(written[2]).map { isSigningSEI($0) ? "signing" : $0[0] & 0x1F == 6 ? "sei" : "slice" }
        let behind = last.firstIndex(of: "slice").map { Array(last[($0 + 1)...]) } ?? []
        #expect(behind.count >= 2 && behind.dropLast().allSatisfy { $0 == "signing" } && behind.last == "sei", "\(last)")
    }

    @Test("a stored access unit whose first NAL unit is 256–511 bytes (it begins 00 00 01) is read by its lengths")
    func framingOfALongFirstNAL() {
        let sei = [UInt8](repeating: 0x06, count: 300)
        let slice: [UInt8] = [0x65, 0x88, 0x84, 0x00]
        let stored = unit([sei, slice])
        #expect(stored.prefix(3) == [0, 0, 1])
        stored.withUnsafeBytes { #expect(H264Framing.of($0) == .lengthPrefixed) }
        let annexB: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1] + slice
        annexB.withUnsafeBytes { #expect(H264Framing.of($0) == .annexB) }
    }

    // MARK: The key file

    @Test("the key is made once, 0600, and read back the same")
    func keyMadeOnce() throws {
        let store = try TestFiles.makeDirectory("signing-key")
        let first = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "n")
        let file = SigningKeyFile(storeDirectory: store.path)
        #expect(first.keyCreated && file.file.mode == 0o600)
        let second = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "n")
        #expect(!second.keyCreated && second.fingerprint == first.fingerprint)
    }

    @Test("a key file that is not 0600, or is torn, stops the node with an error naming it; no new key is made")
    func badKeyFileStops() throws {
        let store = try TestFiles.makeDirectory("signing-bad-key")
        _ = try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "n")
        let file = SigningKeyFile(storeDirectory: store.path)
        let original = try String(contentsOfFile: file.path, encoding: .utf8)

        chmod(file.path, 0o644)
        let loose = #expect(throws: SigningKeyFile.Problem.self) {
            try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "n")
        }
        #expect(loose?.description.contains(file.path) == true && loose?.description.contains("644") == true)

        chmod(file.path, 0o600)
        try String(original.prefix(original.count / 2)).write(toFile: file.path, atomically: false, encoding: .utf8)
        let torn = #expect(throws: SigningKeyFile.Problem.self) {
            try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: "", nodeName: "n")
        }
        #expect(torn?.description.contains(file.path) == true && torn?.description.contains("torn") == true)
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == String(original.prefix(original.count / 2)))
    }

    @Test("`allspark-node run` with a torn or loose key file exits 1 at start naming the file; verify and signing show work on the command line")
    func commandLine() async throws {
        let recording = try await recorded()
        let node = TestFiles.nodeExecutable.path
        let show = try TestFiles.run(node, ["signing", "show", "--store", recording.store.path])
        #expect(show.status == 0 && show.output.contains(recording.identity.fingerprint) && show.output.contains(recording.identity.anchorFingerprint))
        let anchor = try TestFiles.run(node, ["signing", "show", "--anchor", "--store", recording.store.path])
        #expect(anchor.status == 0 && anchor.output == recording.identity.anchorPEM, "\(anchor.output)")
        let certificate = try TestFiles.makeDirectory("signing-cli").appendingPathComponent("anchor.pem")
        try recording.identity.anchorPEM.write(to: certificate, atomically: true, encoding: .utf8)
        let verified = try TestFiles.run(node, ["verify", recording.chunks[0], "--certificate", certificate.path, "--json"])
        #expect(verified.status == 0 && verified.output.contains("\"status\" : \"valid\"") && verified.output.contains("\"trust\" : \"anchor\""), "\(verified.output)")

        let store = try TestFiles.makeDirectory("signing-cli-bad-key")
        let keyPath = SigningKeyFile(storeDirectory: store.path).path
        for (contents, mode) in [("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n", 0o600), (nil, 0o640)] as [(String?, mode_t)] {
            if let contents {
                try contents.write(toFile: keyPath, atomically: false, encoding: .utf8)
            } else {
                try FileManager.default.removeItem(atPath: keyPath)
                _ = try SigningKeyFile(storeDirectory: store.path).loadOrCreate()
            }
            chmod(keyPath, mode)
            let before = try String(contentsOfFile: keyPath, encoding: .utf8)
            let run = try TestFiles.run(
                node, ["run", "--config", "/dev/null", "--source", "testsrc", "--store", store.path, "--privacy", "none", "--port", "0"])
            #expect(run.status == 1 && run.output.contains("media signing key \(keyPath)"), "\(run.output)")
            #expect(try String(contentsOfFile: keyPath, encoding: .utf8) == before, "no new key in its place")
            #expect(!FileManager.default.fileExists(atPath: AccessTokenFile(storeDirectory: store.path).path), "stopped before making the token")
        }
    }

    @Test("a configured certificate for another key is refused")
    func foreignConfiguredCertificate() throws {
        let store = try TestFiles.makeDirectory("signing-configured")
        let other = try TestFiles.makeDirectory("signing-configured-other")
        let otherIdentity = try MediaSigningIdentity.load(storeDirectory: other.path, configuredCertificate: "", nodeName: "o")
        let certificate = other.appendingPathComponent("other.pem").path
        try otherIdentity.chain.pem.write(toFile: certificate, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) {
            try MediaSigningIdentity.load(storeDirectory: store.path, configuredCertificate: certificate, nodeName: "n")
        }
    }

    private func concatenate(_ files: [String], in directory: URL, name: String) throws -> String {
        let list = directory.appendingPathComponent(name + ".txt")
        try files.map { "file '\($0)'" }.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent(name).path
        let result = try TestFiles.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "concat", "-safe", "0", "-i", list.path, "-c", "copy", output])
        guard result.status == 0 else { throw TestFailure("ffmpeg concat failed: \(result.output)") }
        return output
    }
}
