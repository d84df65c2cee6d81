import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Each HTTP/1 request's body held to `RequestBodyLimit`, below the router: a head that
/// announces more (Content-Length) is answered 413 naming the limit without reading a byte
/// of the body, and the connection closed (once an answer in progress has ended); a body
/// without a length (chunked) that grows past it ends the connection once its answer is
/// out (the route has refused it with its own 413 by then). Without this, Hummingbird reads
/// and drops the whole rest of a refused body to keep the connection: a gigabyte.
final class RequestBodyLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let maximumBytes: Int
    private let refusals: RefusalCounters
    /// Requests passed up whose answers have not ended.
    private var answering = 0
    private var bodyBytes = 0
    /// The connection ends: nothing more is passed up.
    private var closing = false
    /// A refused request's announced length, answered once `answering` is 0.
    private var refusedLength: Int?
    /// The refused request was SOAP (ONVIF's paths): its refusal is a SOAP Fault a client reads.
    private var refusedSOAP = false
    private var droppedBytes = 0
    private var stoppedReading = false

    init(maximumBytes: Int = RequestBodyLimit.maximumBytes, refusals: RefusalCounters) {
        self.maximumBytes = maximumBytes
        self.refusals = refusals
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else {
            // Dropped while the connection lingers after a 413 (`LingeringClose`), up to its bytes.
            if case .body(let buffer) = unwrapInboundIn(data) {
                droppedBytes += buffer.readableBytes
                if droppedBytes > LingeringClose.maximumBytes, !stoppedReading {
                    // Enough dropped: reading stops rather than the connection closing, so the
                    // client's sends stall while it reads the answer until the lingering close
                    // ends. Closed now, with its bytes unread, the connection would be reset,
                    // and a reset can take the answer with it (seen with a fast node).
                    stoppedReading = true
                    let channel = context.channel
                    channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in channel.close(promise: nil) }
                }
            }
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let announced = head.headerFields[.contentLength].flatMap(Int.init), announced > maximumBytes {
                closing = true
                refusals.count(.requestBodyLimit)
                refusedLength = announced
                refusedSOAP = head.path?.hasPrefix("/onvif/") ?? false
                if answering == 0 { refuse(context: context) }
                return
            }
            bodyBytes = 0
            answering += 1
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
            if bodyBytes > maximumBytes {
                // This part still goes up, so that a route reading the body refuses it with its 413.
                closing = true
                refusals.count(.requestBodyLimit)
                context.fireChannelRead(data)
                if answering == 0 { LingeringClose.start(context.channel) }
                return
            }
        case .end:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        answering -= 1
        guard closing, answering == 0 else {
            context.write(data, promise: promise)
            return
        }
        context.writeAndFlush(data, promise: promise)
        if refusedLength != nil {
            refuse(context: context)
        } else {
            LingeringClose.start(context.channel)
        }
    }

    private func refuse(context: ChannelHandlerContext) {
        let reason = RequestBodyLimit.refusal(announced: refusedLength ?? 0)
        let body =
            refusedSOAP
            ? SOAPFault.malformed(reason).envelope : JSONResponse.errorBody(reason, extra: ["limitBytes": .number(Double(maximumBytes))])
        refusedLength = nil
        var head = HTTPResponse(status: .contentTooLarge)
        head.headerFields[.contentType] = refusedSOAP ? SOAPResponse.contentType : "application/json"
        head.headerFields[.contentLength] = String(body.utf8.count)
        head.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(string: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in LingeringClose.start(channel) }
    }
}
