import NIOCore
import Varlink

/// The `locd-network` connection's handler after the frame decoder: sends the `Watch` call when the connection
/// opens and hands each reply to the provider.
///
/// Loop-bound, like its provider; the generation tells the provider which connection attempt speaks.
final class NetworkLocationClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let provider: NetworkLocationProvider
    private let generation: Int
    private var error: Error?

    init(provider: NetworkLocationProvider, generation: Int) {
        self.provider = provider
        self.generation = generation
    }

    func channelActive(context: ChannelHandlerContext) {
        provider.connected(context.channel, attempt: generation)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard let reply = VarlinkReply.decode(frame.readableBytesView) else {
            error = VarlinkClient.ClientError.malformedReply
            context.close(promise: nil)
            return
        }
        provider.received(reply, attempt: generation)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        self.error = error
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        provider.disconnected(attempt: generation, error: error)
        context.fireChannelInactive()
    }
}
