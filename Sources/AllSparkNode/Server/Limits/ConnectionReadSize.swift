import NIOCore

/// The most bytes read from a connection at once (NIO's default is 64 KiB). A WebSocket peer
/// read at `MessageRateLimit` still has every message of its last read decoded and waiting:
/// a 64 KiB read of small messages is some 1,600 of them, for each of 64 peers. Nothing the
/// node takes in is large (bodies 64 KiB at most, commands a few hundred bytes).
enum ConnectionReadSize {
    static let maximumBytes = 16 * 1024

    static var allocator: AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: maximumBytes)
    }
}
