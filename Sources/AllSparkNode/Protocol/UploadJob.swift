import Foundation
import NIOCore
import WSCore

/// One answered uploadTimeRange: the overlapping chunks, each followed by its timestamps
/// file. The chunks are pinned in the store from the moment the command is accepted
/// until the last file is sent.
struct UploadJob: Sendable {
    let range: UploadTimeRange
    let chunks: [ChunkRecord]

    struct Report: Sendable {
        var sent: [String] = []
        var skipped: [(file: String, reason: String)] = []
    }

    /// - Parameters:
    ///   - acknowledgements: when given (uplink role), each file waits for the peer's answer to the previous one.
    ///   - eventLoop: the connection's event loop, when known, to pace each file's pieces by (FileUploader).
    func run(
        store: ChunkStore, uploader: FileUploader, outbound: WebSocketOutboundWriter, acknowledgements: UploadAcknowledgements?,
        eventLoop: (any EventLoop)?
    ) async throws -> Report {
        defer { store.unpin(chunks.map(\.stamp)) }
        var report = Report()
        for chunk in chunks {
            for fileName in [chunk.fileName, chunk.timestampsFileName] {
                let path = store.directory.appendingPathComponent(fileName).path
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
        }
        uploader.counters.recordFinishedRequest(files: report.sent)
        return report
    }
}

extension UploadJob.Report {
    /// The final status the node's own server sends after the upload pairs.
    func statusMessage(range: UploadTimeRange) -> String {
        let extra: [String: JSONValue] = [
            "command": .string("uploadTimeRange"),
            "startTime": .number(Double(range.startMs) / 1000),
            "endTime": .number(Double(range.endMs) / 1000),
            "files": .array(sent.map { .string($0) }),
            "skipped": .array(skipped.map { .object(["file": .string($0.file), "reason": .string($0.reason)]) }),
        ]
        if skipped.isEmpty {
            return ProtocolMessage.status(true, "Uploaded \(sent.count) files", extra: extra)
        }
        let reasons = skipped.map { "\($0.file): \($0.reason)" }.joined(separator: "; ")
        return ProtocolMessage.status(false, "Uploaded \(sent.count) of \(sent.count + skipped.count) files; skipped \(reasons)", extra: extra)
    }
}
