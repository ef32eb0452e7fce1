import JSON
import NIOCore

/// Where the replies of one call go: a single reply, or every reply of a `more` call until the final one.
enum VarlinkReplySink: Sendable {
    case single(EventLoopPromise<VarlinkReply>)
    /// Error replies end the stream by throwing ``VarlinkError``.
    case stream(AsyncThrowingStream<JSONObject, any Error>.Continuation)

    func fail(_ error: any Error) {
        switch self {
        case .single(let promise): promise.fail(error)
        case .stream(let continuation): continuation.finish(throwing: error)
        }
    }
}

/// One call on its way to the server, with the sink its replies go to.
struct VarlinkClientRequest: Sendable {
    var call: VarlinkCall
    var sink: VarlinkReplySink
}

/// The client side of a Varlink connection: writes calls as NUL-terminated frames and hands each reply to
/// the sink of the oldest call still waiting, since a server answers the calls of one connection in order.
///
/// When the connection closes or breaks, every waiting sink fails with ``VarlinkClient/ClientError/closed``,
/// so no caller waits for a reply that cannot come.
final class VarlinkClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = VarlinkClientRequest
    typealias OutboundOut = ByteBuffer

    private var waiting = CircularBuffer<VarlinkReplySink>()
    private var isClosed = false

    /// - Parameter first: the reply sink of a call sent on the socket before this handler read it.
    init(awaiting first: EventLoopPromise<VarlinkReply>? = nil) {
        if let first { waiting.append(.single(first)) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard !isClosed else {
            request.sink.fail(VarlinkClient.ClientError.closed)
            promise?.fail(VarlinkClient.ClientError.closed)
            return
        }
        if !request.call.oneway { waiting.append(request.sink) }
        let text = request.call.serialized
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count + 1)
        buffer.writeString(text)
        buffer.writeInteger(UInt8(0))
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard let reply = VarlinkReply.decode(frame.readableBytesView) else {
            return abandon(context: context, with: VarlinkClient.ClientError.malformedReply)
        }
        // A reply nobody asked for breaks the pairing of calls and replies: nothing after it can be trusted.
        guard let sink = waiting.first else {
            return abandon(context: context, with: VarlinkClient.ClientError.malformedReply)
        }
        switch sink {
        case .single(let promise):
            waiting.removeFirst()
            promise.succeed(reply)
        case .stream(let continuation):
            if let error = reply.error {
                waiting.removeFirst()
                continuation.finish(throwing: VarlinkError(name: error, parameters: reply.parameters))
            } else if reply.continues {
                continuation.yield(reply.parameters)
            } else {
                waiting.removeFirst()
                continuation.yield(reply.parameters)
                continuation.finish()
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(VarlinkClient.ClientError.closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let reported: any Error =
            error is VarlinkFrameDecoder.FrameTooLarge
            ? VarlinkClient.ClientError.tooLarge : VarlinkClient.ClientError.closed
        abandon(context: context, with: reported)
    }

    private func abandon(context: ChannelHandlerContext, with error: any Error) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: any Error) {
        isClosed = true
        while let sink = waiting.popFirst() { sink.fail(error) }
    }
}
