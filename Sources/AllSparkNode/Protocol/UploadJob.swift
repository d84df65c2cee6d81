import Foundation
import NIOCore
import WSCore

/// One answered uploadTimeRange: the overlapping chunks, each followed by its timestamps
/// file. The chunks stored when the command is accepted are pinned from then until the last
/// file is sent; when the range reaches into the chunk being recorded, that chunk is ended
/// early and sent too.
struct UploadJob: Sendable {
    /// The range as asked, in the asker's clock.
    let askedRange: UploadTimeRange
    /// The same range in node time (mapped through the edge server's clock offset).
    let range: UploadTimeRange
    let offsetAppliedMs: Double?
    let chunks: [ChunkRecord]

    init(askedRange: UploadTimeRange, mapped: EdgeTimeMapping.Mapped? = nil, chunks: [ChunkRecord]) {
        self.askedRange = askedRange
        range = mapped?.range ?? askedRange
        offsetAppliedMs = mapped?.offsetAppliedMs
        self.chunks = chunks
    }

    struct Report: Sendable {
        var sent: [String] = []
        var skipped: [(file: String, reason: String)] = []
        /// Files of a chunk ended early so that the range's newest footage could be sent.
        var cutEarly: [String] = []
        /// Files the ring no longer held, read back from the archive.
        var fromArchive: [String] = []
    }

    /// - Parameters:
    ///   - acknowledgements: when given (uplink role), each file waits for the peer's answer to the previous one.
    ///   - eventLoop: the connection's event loop, when known, to pace each file's pieces by (FileUploader).
    ///   - publishFootage: ends the chunk being recorded when it holds footage up to a time (Recorder.publishFootage).
    func run(
        store: ChunkStore, archive: ArchiveCatalog?, uploader: FileUploader, outbound: WebSocketOutboundWriter,
        acknowledgements: UploadAcknowledgements?, eventLoop: (any EventLoop)?, publishFootage: @Sendable (Int64) async -> [String]
    ) async throws -> Report {
        var report = Report()
        report.cutEarly = await publishFootage(min(range.endMs, WallClock.nowMs()))
        let fresh = range.chunks(in: store).filter { found in !chunks.contains { $0.stamp == found.stamp } }
        store.pin(fresh.map(\.stamp))
        let stored = chunks + fresh
        defer { store.unpin(stored.map(\.stamp)) }
        var archived: [ArchiveManifest] = []
        if let archive {
            do {
                archived = try await range.archivedChunks(in: archive, notHeldBy: store).filter { manifest in
                    !stored.contains { $0.stamp == manifest.stamp }
                }
            } catch {
                report.skipped.append(("archive", "the archive could not be listed: \(error)"))
            }
        }
        var sources = stored.map { ChunkSource.ring($0) } + archived.map { ChunkSource.archive($0) }
        sources.sort { $0.startMs < $1.startMs }

        func send(_ path: String, _ fileName: String) async throws {
            switch try await uploader.upload(path: path, fileName: fileName, to: outbound, eventLoop: eventLoop) {
            case .sent:
                report.sent.append(fileName)
                if let acknowledgements, await !acknowledgements.next() {
                    report.skipped.append((fileName, "sent, but the peer did not confirm it within 60 s"))
                }
            case .missing:
                report.skipped.append((fileName, "evicted from the store before it could be sent"))
            case .empty:
                report.skipped.append((fileName, "empty file"))
            case .tooLarge(let bytes):
                report.skipped.append((fileName, "\(bytes) bytes is over the peer's message limit of \(uploader.maximumMessageBytes) bytes"))
            }
        }
        for source in sources {
            switch source {
            case .ring(let chunk):
                for fileName in [chunk.fileName, chunk.timestampsFileName] {
                    try await send(store.directory.appendingPathComponent(fileName).path, fileName)
                }
            case .archive(let manifest):
                guard let archive else { continue }
                // One archived chunk on local disk at a time, removed once sent.
                let fetched: FetchedChunk
                do {
                    fetched = try await archive.fetch(manifest)
                } catch {
                    for fileName in [manifest.chunkFile, manifest.timestampsFile] {
                        report.skipped.append((fileName, "could not be read from the archive: \(error)"))
                    }
                    continue
                }
                defer { fetched.remove() }
                try await send(fetched.chunkPath, manifest.chunkFile)
                try await send(fetched.timestampsPath, manifest.timestampsFile)
                report.fromArchive += [manifest.chunkFile, manifest.timestampsFile]
            }
        }
        uploader.counters.recordFinishedRequest(files: report.sent)
        return report
    }
}

/// Where a chunk of an answered range is read from.
enum ChunkSource: Sendable {
    case ring(ChunkRecord)
    case archive(ArchiveManifest)

    var startMs: Int64 {
        switch self {
        case .ring(let record): record.startMs
        case .archive(let manifest): manifest.firstFrameMs
        }
    }
}

extension UploadJob.Report {
    /// The final status after the upload pairs: the files sent, skipped and ended early, and
    /// the clock the range was read in (with the offset applied when it was the edge server's).
    func statusMessage(job: UploadJob) -> String {
        var extra: [String: JSONValue] = [
            "command": .string("uploadTimeRange"),
            "startTime": .number(Double(job.askedRange.startMs) / 1000),
            "endTime": .number(Double(job.askedRange.endMs) / 1000),
            "files": .array(sent.map { .string($0) }),
            "skipped": .array(skipped.map { .object(["file": .string($0.file), "reason": .string($0.reason)]) }),
            "cutEarly": .array(cutEarly.map { .string($0) }),
            "fromArchive": .array(fromArchive.map { .string($0) }),
            "clock": .string(job.offsetAppliedMs == nil ? "node" : "edge"),
        ]
        if let offset = job.offsetAppliedMs {
            extra["offsetAppliedMs"] = .number(offset)
            extra["nodeStartTime"] = .number(Double(job.range.startMs) / 1000)
            extra["nodeEndTime"] = .number(Double(job.range.endMs) / 1000)
        }
        if skipped.isEmpty {
            return ProtocolMessage.status(true, "Uploaded \(sent.count) files", extra: extra)
        }
        let reasons = skipped.map { "\($0.file): \($0.reason)" }.joined(separator: "; ")
        return ProtocolMessage.status(false, "Uploaded \(sent.count) of \(sent.count + skipped.count) files; skipped \(reasons)", extra: extra)
    }

    /// One line for the log.
    func summary(job: UploadJob) -> String {
        var text = "uploadTimeRange: sent \(sent.count) files, skipped \(skipped.count)"
        if !cutEarly.isEmpty { text += ", ended \(cutEarly[0]) early for it" }
        if !fromArchive.isEmpty { text += ", \(fromArchive.count) of them read back from the archive" }
        if let offset = job.offsetAppliedMs { text += ", range read in the edge server's clock (offset \(offset.formatted1) ms applied)" }
        return text
    }
}
