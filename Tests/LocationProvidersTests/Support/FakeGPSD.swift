import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A stand-in for gpsd on a Unix socket or a TCP port: greets each connection with gpsd's VERSION line,
/// records what clients send, and writes or closes on the test's command.
final class FakeGPSD: Sendable {
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\r\n"

    private struct State {
        var connections: [Channel] = []
        var received: [[UInt8]] = []
        var closed = 0
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let state = Mutex(State())
    private let listener = Mutex<Channel?>(nil)

    /// Listens on the Unix socket `path`.
    init(path: String) throws {
        let channel = try bootstrap().bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
        listener.withLock { $0 = channel }
    }

    /// Listens on 127.0.0.1 on a free port.
    init() throws {
        let channel = try bootstrap().bind(host: "127.0.0.1", port: 0).wait()
        listener.withLock { $0 = channel }
    }

    deinit {
        shutdown()
    }

    var port: Int { listener.withLock { $0?.localAddress?.port ?? 0 } }
    var accepted: Int { state.withLock { $0.connections.count } }
    var closedConnections: Int { state.withLock { $0.closed } }

    /// What client `index` (in order of connection) has sent.
    func received(_ index: Int) -> String {
        state.withLock { index < $0.received.count ? String(decoding: $0.received[index], as: UTF8.self) : "" }
    }

    /// Writes `text` to client `index`.
    func send(_ text: String, to index: Int) throws {
        let channel = state.withLock { $0.connections[index] }
        try channel.writeAndFlush(ByteBuffer(string: text)).wait()
    }

    /// Closes client `index`'s connection.
    func disconnect(_ index: Int) throws {
        let channel = state.withLock { $0.connections[index] }
        try channel.close().wait()
    }

    func shutdown() {
        if let channel = listener.withLock({ $0.take() }) { try? channel.close().wait() }
        for channel in state.withLock({ $0.connections }) { try? channel.close().wait() }
        try? group.syncShutdownGracefully()
    }

    private func bootstrap() -> ServerBootstrap {
        ServerBootstrap(group: group)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Recorder(server: self))
                }
            }
    }

    fileprivate func opened(_ channel: Channel) -> Int {
        state.withLock {
            $0.connections.append(channel)
            $0.received.append([])
            return $0.connections.count - 1
        }
    }

    fileprivate func read(_ bytes: [UInt8], on index: Int) {
        state.withLock { $0.received[index] += bytes }
    }

    fileprivate func closed() {
        state.withLock { $0.closed += 1 }
    }

    private final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let server: FakeGPSD
        var index = 0

        init(server: FakeGPSD) {
            self.server = server
        }

        func channelActive(context: ChannelHandlerContext) {
            index = server.opened(context.channel)
            context.writeAndFlush(NIOAny(ByteBuffer(string: FakeGPSD.version)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            server.read(buffer.readBytes(length: buffer.readableBytes) ?? [], on: index)
        }

        func channelInactive(context: ChannelHandlerContext) {
            server.closed()
        }
    }
}
