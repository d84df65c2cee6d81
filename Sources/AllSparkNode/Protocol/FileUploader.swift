import NIOCore
import _NIOFileSystem
import WSCore

/// Sends one stored file as an upload pair: the JSON metadata, then the whole file as ONE
/// binary WebSocket message written in pieces straight from disk. Memory stays bounded by
/// the piece size times the pieces NIO may queue before backpressure, whatever the file size.
///
/// The writer's backpressure only knows the channel's writability as of the last write the
/// event loop has run; pieces handed over since then wait in the loop's task queue, and are
/// all encoded (a client masks each into a copy) whether the socket keeps up or not. Given
/// the connection's event loop, the uploader waits for the loop to take each piece before
/// handing over the next, so no backlog builds up in front of the writability check.
public struct FileUploader: Sendable {
    /// The edge server drops the connection on a message of 300 MiB or more (PROTOCOL.md).
    public static let edgeServerMessageLimit: Int64 = 314_572_800 - 1
    public static let pieceBytes: Int64 = 256 * 1024

    public let maximumMessageBytes: Int64
    public let counters: UploadCounters

    public init(maximumMessageBytes: Int64 = edgeServerMessageLimit, counters: UploadCounters) {
        self.maximumMessageBytes = maximumMessageBytes
        self.counters = counters
    }

    public enum Outcome: Sendable, Equatable {
        case sent(bytes: Int64)
        /// Over the peer's message limit: sending it would make the peer drop the connection.
        case tooLarge(bytes: Int64)
        /// Gone from the store before it could be opened (evicted).
        case missing
        /// A 0-byte file cannot be sent as a WebSocket message.
        case empty
    }

    /// - Parameter eventLoop: the connection's event loop, when known, to pace the pieces by.
    public func upload(
        path: String, fileName: String, to outbound: WebSocketOutboundWriter, eventLoop: (any EventLoop)? = nil
    ) async throws -> Outcome {
        do {
            return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                // Opened first: an eviction from now on cannot take the bytes away mid-send.
                let size = try await handle.info().size
                guard size > 0 else { return .empty }
                guard size <= maximumMessageBytes else { return .tooLarge(bytes: size) }
                try await outbound.writeTextMessage(
                    ProtocolMessage.uploadMetadata(fileName: fileName, size: size, mimeType: ProtocolMessage.mimeType(forFileName: fileName)))
                var sent: Int64 = 0
                var previousTaken: EventLoopFuture<Void>?
                try await outbound.withBinaryMessageWriter { write in
                    for try await piece in handle.readChunks(chunkLength: .bytes(Self.pieceBytes)) {
                        try await write(piece)
                        sent += Int64(piece.readableBytes)
                        // Tasks run in order: once this one has run, the loop has taken the piece.
                        // Waiting for the previous piece's turn keeps one piece queued, so the loop never idles.
                        let taken = eventLoop?.submit {}
                        try await previousTaken?.get()
                        previousTaken = taken
                    }
                }
                counters.recordUpload(bytes: sent)
                return .sent(bytes: sent)
            }
        } catch let error as FileSystemError where error.code == .notFound {
            return .missing
        }
    }
}
