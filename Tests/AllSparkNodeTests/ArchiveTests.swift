import Crypto
import Foundation
import Testing
import _NIOFileSystem
@testable import AllSparkNode

/// The archive's parts that need no bucket: signing, the journal, the backlog's account,
/// part digests and settings. Against a real S3 service: Tests/protocol/test_archive.py.
struct ArchiveTests {
    /// The example key pair of AWS's S3 Signature Version 4 documentation.
    static let exampleCredentials = S3Credentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")

    static func signature(of headers: [(String, String)]) -> String? {
        headers.first { $0.0 == "authorization" }?.1.components(separatedBy: "Signature=").last
    }

    @Test("SigV4 signatures equal the ones AWS's documentation gives for its examples")
    func signaturesMatchTheDocumentedExamples() {
        let signer = S3RequestSigner(credentials: Self.exampleCredentials, region: "us-east-1")
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
        let getObject = signer.signedHeaders(
            method: "GET", path: "/test.txt", query: [],
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")],
            payloadSHA256: S3RequestSigner.emptyPayloadSHA256, date: date)
        #expect(Self.signature(of: getObject) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(getObject.contains { $0 == ("x-amz-date", "20130524T000000Z") })
        #expect(!getObject.contains { $0.0 == "host" }, "the host header is the caller's to send")

        let listObjects = signer.signedHeaders(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: [("host", "examplebucket.s3.amazonaws.com")], payloadSHA256: S3RequestSigner.emptyPayloadSHA256, date: date)
        #expect(Self.signature(of: listObjects) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")

        let otherSecret = S3RequestSigner(credentials: S3Credentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "another"), region: "us-east-1")
        let forged = otherSecret.signedHeaders(
            method: "GET", path: "/test.txt", query: [], headers: [("host", "examplebucket.s3.amazonaws.com"), ("range", "bytes=0-9")],
            payloadSHA256: S3RequestSigner.emptyPayloadSHA256, date: date)
        #expect(Self.signature(of: forged) != Self.signature(of: getObject))
    }

    @Test("keys are percent-encoded as SigV4 asks, slashes kept in paths")
    func encodesKeys() {
        #expect(S3RequestSigner.encodePath("/bucket/node 1/chunk_1.000.mp4") == "/bucket/node%201/chunk_1.000.mp4")
        #expect(S3RequestSigner.encode("a/b+c=d~") == "a%2Fb%2Bc%3Dd~")
        #expect(S3RequestSigner.encode("é") == "%C3%A9")
    }

    @Test("the journal keeps what is archived, per bucket, skips a torn line, and compacts")
    func journalRecordsAndCompacts() throws {
        let directory = try TestFiles.makeDirectory("journal")
        let journal = ArchiveJournal(storeDirectory: directory, target: "http://s3 bucket node/")
        try journal.recordArchived(stamp: "1700000000.000")
        try journal.recordArchived(stamp: "1700000030.000")
        // A torn last line, as a crash mid-append leaves it; the node compacts at every start,
        // before it appends again.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal.path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"target\":\"http://s3 buck".utf8))
        try handle.close()
        #expect(journal.archivedStamps() == ["1700000000.000", "1700000030.000"])
        #expect(ArchiveJournal(storeDirectory: directory, target: "http://s3 other node/").archivedStamps().isEmpty, "another bucket starts afresh")

        try journal.compact(keeping: ["1700000030.000", "1700000120.000"])
        #expect(journal.archivedStamps() == ["1700000030.000"])
        try journal.recordArchived(stamp: "1700000090.000")
        #expect(journal.archivedStamps() == ["1700000030.000", "1700000090.000"])
        var info = stat()
        #expect(stat(journal.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test("the journal asks to be compacted after its set number of appends, and not before")
    func journalCompactionIsDue() throws {
        let directory = try TestFiles.makeDirectory("journal-due")
        let journal = ArchiveJournal(storeDirectory: directory, target: "http://s3 bucket node/", linesBetweenCompactions: 3)
        for second in 0..<2 { try journal.recordArchived(stamp: "17000000\(10 + second).000") }
        #expect(!journal.isDueForCompaction)
        try journal.recordArchived(stamp: "1700000012.000")
        #expect(journal.isDueForCompaction)
        // The ring has let the first two go: only the third's line is kept.
        try journal.compact(keeping: ["1700000012.000", "1700000013.000"])
        #expect(!journal.isDueForCompaction)
        #expect(journal.archivedStamps() == ["1700000012.000"])
        #expect(try String(contentsOfFile: journal.path, encoding: .utf8).split(separator: "\n").count == 1)
    }

    static func record(_ startMs: Int64, bytes: Int64 = 1000) -> ChunkRecord {
        ChunkRecord(
            stamp: ChunkNaming.stamp(forMs: startMs), format: .mp4, startMs: startMs, endMs: startMs + 9_966, frameCount: 300,
            chunkBytes: bytes, timestampsBytes: 100)
    }

    @Test("the backlog hands out the oldest chunk first, counts evictions of waiting chunks only, and reports the lag")
    func backlogOrderAndAccount() {
        let backlog = ArchiveBacklog()
        backlog.add(Self.record(1_700_000_020_000))
        backlog.add(Self.record(1_700_000_000_000), checkBucketFirst: true)
        backlog.add(Self.record(1_700_000_010_000))
        backlog.add(Self.record(1_700_000_010_000))
        #expect(backlog.first == ArchiveBacklog.Item(record: Self.record(1_700_000_000_000), checkBucketFirst: true))

        var status = backlog.snapshot(nowMs: 1_700_000_060_000, nowMonotonicMs: 0)
        #expect(status.backlogChunks == 3 && status.backlogBytes == 3 * 1100)
        #expect(status.lagMs == 60_000)

        #expect(backlog.evicted(Self.record(1_700_000_000_000)))
        #expect(!backlog.evicted(Self.record(1_699_999_990_000)), "a chunk that was not waiting is not lost to the archive")
        backlog.archived(Self.record(1_700_000_010_000), sentBytes: 1200, seconds: 0.5, nowMonotonicMs: 10_000)
        backlog.failed(S3Error(operation: "PUT k", status: 404, code: "NoSuchBucket", detail: "no bucket"), nowMs: 1_700_000_061_000)
        status = backlog.snapshot(nowMs: 1_700_000_080_000, nowMonotonicMs: 20_000)
        #expect(status.evictedBeforeArchive == 1 && status.chunksArchived == 1 && status.bytesArchived == 1200)
        #expect(status.backlogChunks == 1 && status.lagMs == 60_000)
        #expect(status.uploadBytesPerSecond == 20 && status.lastChunkBytesPerSecond == 2400)
        #expect(status.phase == .retrying && status.configurationProblem)
        backlog.uploading()
        #expect(backlog.snapshot(nowMs: 1_700_000_080_000, nowMonotonicMs: 20_000).phase == .retrying, "retrying until an attempt succeeds")
        #expect(status.problems(maxLagSeconds: 30).count == 2)
        #expect(status.problems(maxLagSeconds: 600) == ["archive failing: PUT k: 404 NoSuchBucket (no bucket)"])
    }

    @Test("a file's digest and its part digests are SHA-256 of the whole and of each slice")
    func digestsParts() async throws {
        let directory = try TestFiles.makeDirectory("digest")
        let path = directory.appendingPathComponent("file").path
        let bytes = (0..<(700 * 1024 + 13)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let partBytes: Int64 = 300 * 1024
        let digest = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
            try await FileDigest.of(handle, size: Int64(bytes.count), partBytes: partBytes)
        }
        #expect(digest.sha256 == FileDigest.sha256Hex(of: bytes))
        let slices = stride(from: 0, to: bytes.count, by: Int(partBytes)).map { Array(bytes[$0..<min($0 + Int(partBytes), bytes.count)]) }
        #expect(digest.partSHA256 == slices.map { FileDigest.sha256Hex(of: $0) })
        #expect(digest.partSHA256.count == 3)
        await #expect(throws: FileDigest.ShortRead.self) {
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                try await FileDigest.of(handle, size: Int64(bytes.count) + 1)
            }
        }
    }

    @Test("S3's XML answers: keys, tokens and error codes, entities decoded")
    func readsS3Answers() {
        let listing = "<ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>a/manifests/1.000.json</Key></Contents>"
            + "<Contents><Key>a/R&amp;D.json</Key></Contents><NextContinuationToken>t&lt;1</NextContinuationToken></ListBucketResult>"
        #expect(S3XML.values(of: "Key", in: listing) == ["a/manifests/1.000.json", "a/R&D.json"])
        #expect(S3XML.firstValue(of: "NextContinuationToken", in: listing) == "t<1")
        let error = S3Error.answered("PUT k", status: 403, body: "<Error><Code>SignatureDoesNotMatch</Code><Message>bad</Message></Error>")
        #expect(error.code == "SignatureDoesNotMatch" && error.isConfigurationProblem)
        #expect(!S3Error.unreachable("PUT k", CancellationError()).isConfigurationProblem)
    }

    @Test("settings: bucket and prefix rules, the default prefix, credentials never printed")
    func settingsAndCredentials() throws {
        #expect(ArchiveSettings.isValidBucket("allspark-archive"))
        #expect(!ArchiveSettings.isValidBucket("Bad_Bucket") && !ArchiveSettings.isValidBucket("ab"))
        #expect(ArchiveSettings.isValidPrefix("lab/cam-1/") && ArchiveSettings.isValidPrefix("cam"))
        #expect(!ArchiveSettings.isValidPrefix("/abs/") && !ArchiveSettings.isValidPrefix("a/../b/") && !ArchiveSettings.isValidPrefix("a//b/"))
        var settings = ArchiveSettings()
        #expect(settings.resolvedPrefix(clientName: "node-123") == "node-123/")
        settings.prefix = "lab/cam1"
        #expect(settings.resolvedPrefix(clientName: "node-123") == "lab/cam1/")

        let environment = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "very-secret"]
        let fromEnvironment = try S3Credentials.load(file: "", environment: environment)
        #expect(fromEnvironment.accessKeyId == "AKID" && !"\(fromEnvironment)".contains("very-secret"))
        #expect(throws: S3Credentials.Missing.self) { try S3Credentials.load(file: "", environment: [:]) }

        let file = try TestFiles.makeDirectory("credentials").appendingPathComponent("credentials").path
        try "[other]\naws_access_key_id = X\naws_secret_access_key = Y\n[default]\naws_access_key_id = AK2\naws_secret_access_key=S2\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try S3Credentials.load(file: file, environment: [:]) == S3Credentials(accessKeyId: "AK2", secretAccessKey: "S2"))
        #expect(try S3Credentials.load(file: file, environment: ["AWS_PROFILE": "other"]).accessKeyId == "X")
    }

    @Test("a manifest round-trips, and one naming files of another chunk is not trusted")
    func manifestsAreChecked() throws {
        let digest = FileDigest(size: 1000, sha256: String(repeating: "a", count: 64), partSHA256: [])
        let stamps = FileDigest(size: 100, sha256: String(repeating: "b", count: 64), partSHA256: [])
        let manifest = ArchiveManifest(node: "node-1", record: Self.record(1_700_000_000_000), chunk: digest, timestamps: stamps, archivedAtMs: 1)
        let decoded = try ArchiveManifest.decode(try manifest.encoded())
        #expect(decoded == manifest && decoded.isWellFormed)
        #expect(decoded.record == Self.record(1_700_000_000_000))
        var json = String(decoding: try manifest.encoded(), as: UTF8.self)
        json = json.replacingOccurrences(of: "chunk_1700000000.000.mp4", with: "../../etc/passwd")
        #expect(try !ArchiveManifest.decode(Array(json.utf8)).isWellFormed)
    }
}
