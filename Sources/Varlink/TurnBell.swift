import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Lets the event loop read every socket before a connection that used up its turn runs more calls (F17).
///
/// NIO runs the tasks queued on a loop until none is left before it looks at its sockets again, so a task that
/// queued the next batch of a pipelined connection's calls would keep a busy connection going and every other
/// socket (a newcomer's, another client's) waiting. Instead the bell writes one byte to a pipe that the loop
/// watches like a socket: the waiting connections get their next turn when the loop reads it, which is after
/// it has asked the kernel which sockets are ready, in the same round as every other one of them.
final class TurnBell: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let server: VarlinkServerCore
    private let writeEnd: Int32

    private init(server: VarlinkServerCore, writeEnd: Int32) {
        self.server = server
        self.writeEnd = writeEnd
    }

    /// Opens the pipe and watches its read end on `server`'s loop; `server` rings through the result.
    static func install(on server: VarlinkServerCore) -> EventLoopFuture<TurnBell> {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            return server.eventLoop.makeFailedFuture(IOError(errnoCode: errno, reason: "pipe"))
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let bell = NIOLoopBound(TurnBell(server: server, writeEnd: writeEnd), eventLoop: server.eventLoop)
        return NIOPipeBootstrap(group: server.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(bell.value) }
            }
            .takingOwnershipOfDescriptor(input: readEnd)
            .map { _ in bell.value }
            .flatMapErrorThrowing { error in
                close(readEnd)
                close(writeEnd)
                throw error
            }
    }

    /// Asks for a turn after the loop's next look at its sockets. A full pipe is already readable.
    func ring() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        server.nextTurn()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        close(writeEnd)
    }
}
