import NIOCore
import NIOPosix
import Varlink

/// The transport limit: a minimal NUL-delimited echo server on SwiftNIO, on one event loop and the same
/// kind of Unix socket as `locd`, built the way `locd`'s Varlink server is (the same frame decoder),
/// but doing nothing with a frame except write it back.
///
/// Churn against it, with the same clients and the same bytes, is what the daemon's churn is divided by:
/// the ratio says how much of the transport's speed the daemon keeps, on whatever machine it runs.
final class EchoServer {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var channel: Channel?

    /// Listens on `path`.
    init(path: String) throws {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(VarlinkFrameDecoder(maximumFrameLength: 1 << 20)),
                        EchoHandler(),
                    ])
                }
            }
        channel = try bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
    }

    /// Closes the listener and stops the event loop.
    func shutdown() {
        try? channel?.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Writes every frame back with its NUL, flushing once per read burst as `locd`'s connections do.
private final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var frame = unwrapInboundIn(data)
        frame.writeInteger(UInt8(0))
        context.write(wrapOutboundOut(frame), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}
