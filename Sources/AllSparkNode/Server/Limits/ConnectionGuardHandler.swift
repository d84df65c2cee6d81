import NIOCore

/// First in every connection's pipeline (after TLS, before HTTP), on its bytes: counts the
/// connection against `ConnectionLimit` (past it, a 503 naming the limit, then close) and
/// closes with a 408 naming `RequestHeadTimeout` a connection whose first request head is
/// not whole in time (idle or slowloris), each refusal counted in `RefusalCounters`. Both
/// answers are written before anything above has seen a request, so they cannot cut into
/// another answer. Once the first head is in (an empty line seen), the bytes pass
/// untouched: a WebSocket the same as HTTP.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// New; counted against the limit; answered (408 or 503: what comes is dropped); closed.
    private enum State { case new, admitted, answered, released }

    private let limit: ConnectionLimit
    private let refusals: RefusalCounters
    private let headTimeout: TimeAmount
    private var state = State.new
    private var headSeen = false
    /// The last bytes read, to find the empty line ending the first head across reads.
    private var recent: UInt32 = 0
    private var timer: Scheduled<Void>?
    private var droppedBytes = 0

    init(limit: ConnectionLimit, refusals: RefusalCounters, headTimeout: TimeAmount = .seconds(RequestHeadTimeout.seconds)) {
        self.limit = limit
        self.refusals = refusals
        self.headTimeout = headTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { open(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        open(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    /// At shutdown a connection that has sent no whole request head (a browser's preconnect,
    /// a slowloris) or was already answered is closed at once: no handler above has a request
    /// of it to finish, and waiting for the head timeout held the node's stop for 12 s.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !headSeen || state == .answered {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state != .answered else {
            // Dropped while the connection lingers after its answer (`LingeringClose`), up to its bytes.
            droppedBytes += unwrapInboundIn(data).readableBytes
            if droppedBytes > LingeringClose.maximumBytes { context.close(promise: nil) }
            return
        }
        if !headSeen {
            let buffer = unwrapInboundIn(data)
            for byte in buffer.readableBytesView {
                recent = recent << 8 | UInt32(byte)
                if recent == 0x0D0A_0D0A || recent & 0xFFFF == 0x0A0A {
                    headSeen = true
                    timer?.cancel()
                    timer = nil
                    break
                }
            }
        }
        context.fireChannelRead(data)
    }

    private func open(context: ChannelHandlerContext) {
        guard state == .new else { return }
        guard limit.admit() else {
            state = .answered
            refusals.count(.connectionLimit)
            answer(context: context, status: "503 Service Unavailable", message: limit.refusal, extra: "Retry-After: 1\r\n")
            return
        }
        state = .admitted
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: headTimeout) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            guard !handler.headSeen, handler.state == .admitted else { return }
            // Answered: no longer counted (it closes within LingeringClose.seconds), its bytes dropped.
            handler.limit.release()
            handler.state = .answered
            handler.refusals.count(.requestHeadTimeout)
            handler.answer(context: context, status: "408 Request Timeout", message: RequestHeadTimeout.refusal, extra: "")
        }
    }

    private func release() {
        timer?.cancel()
        timer = nil
        guard state == .admitted else { return }
        limit.release()
        state = .released
    }

    /// A whole HTTP/1.1 answer in the API's error shape, then close.
    private func answer(context: ChannelHandlerContext, status: String, message: String, extra: String) {
        let body = JSONResponse.errorBody(message)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\(extra)\r\n"
        let buffer = context.channel.allocator.buffer(string: head + body)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { [channel = context.channel] _ in LingeringClose.start(channel) }
    }
}
