import NIOCore

/// The gpsd connection's one handler: sends `?WATCH` when the connection opens and hands each read's
/// complete messages to the provider.
///
/// Loop-bound, like its provider; the generation tells the provider which connection attempt speaks.
final class GPSDClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let provider: GPSDProvider
    private let generation: Int
    private var parser = GPSDMessageParser()
    private var error: Error?

    init(provider: GPSDProvider, generation: Int) {
        self.provider = provider
        self.generation = generation
    }

    func channelActive(context: ChannelHandlerContext) {
        provider.connected(context.channel, attempt: generation)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let malformed = parser.malformedLines
        let messages = buffer.withUnsafeReadableBytes { parser.feed($0) }
        if parser.malformedLines > malformed {
            provider.receivedMalformed(count: parser.malformedLines - malformed, attempt: generation)
        }
        if !messages.isEmpty { provider.received(messages, attempt: generation) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        self.error = error
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        parser.reset()
        provider.disconnected(attempt: generation, error: error)
        context.fireChannelInactive()
    }
}
