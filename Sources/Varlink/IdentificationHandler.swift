import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Reads a new connection itself, with `recvmsg`, until its identifying call has been read, so that the
/// daemon knows which process wrote that call (SEMANTICS I4); then hands the connection to NIO and leaves.
///
/// NIO reads stream sockets with `read`, which drops the `SCM_CREDENTIALS` and `SCM_PIDFD` the kernel attaches
/// to each writer's bytes. So the channel starts with `autoRead` off, and this handler, first in the pipeline,
/// reads what arrives (woken by ``ReadinessPoller``), passes on each frame with the process that wrote all of
/// it, and stops after the first frame that is not an `org.varlink.service` call (a Varlink client may ask for
/// interface descriptions first). Then the bytes it holds go down the pipeline, the connection turns `autoRead`
/// on (unless those bytes already filled its pipeline, F4), and the handler removes itself: from there NIO reads as it always does, and the hot path pays nothing.
///
/// Descriptors a peer passes with `SCM_RIGHTS` go with the frame that holds the last byte of the read they came
/// in (the kernel ends a read with the bytes that carried them): those of the identifying call reach the
/// connection, which closes them once the call is checked; those of any other frame are closed at once, as are
/// those still waiting when identification ends. From then on NIO reads with `read`, and the kernel closes
/// whatever is passed.
///
/// Bytes NIO reads itself in the meantime (at end of input it drains the socket whatever `autoRead` says)
/// come through ``channelRead(context:data:)`` in order, marked as written by an unknown process.
final class IdentificationHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// `org.varlink.service` calls that may come before the identifying call; one more ends identification
    /// without one.
    static let maximumServiceCalls = 16
    private static let readSize = 16_384

    private let state: IdentificationState
    private let maximumFrameLength: Int
    private let server: VarlinkServerCore
    private var context: ChannelHandlerContext?
    private var descriptor: Int32 = -1
    private var token: UInt64?
    private var identifying = true
    /// Bytes read but not yet passed on: the start of a frame, and who wrote them.
    private var pending: [UInt8] = []
    private var pendingSender: FrameSender?
    /// Descriptors passed with the pending bytes.
    private var pendingDescriptors: PassedDescriptors?
    private var serviceCalls = 0

    init(state: IdentificationState, maximumFrameLength: Int, server: VarlinkServerCore) {
        self.state = state
        self.maximumFrameLength = maximumFrameLength
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        if let descriptor = Self.descriptor(of: context.channel) {
            self.descriptor = descriptor
            state.credentials = PeerCredentials.read(descriptor: descriptor)
        }
        context.fireChannelActive()
        guard descriptor >= 0 else {
            server.log("cannot reach a connection's socket to read who writes to it: its Hello has no known sender")
            return finish(context)
        }
        readAvailable(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard identifying else { return context.fireChannelRead(data) }
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        absorb(
            bytes,
            from: .unknown(reason: "it was read without the writer's credentials"),
            passing: PassedDescriptors(),
            context: context
        )
    }

    func channelInactive(context: ChannelHandlerContext) {
        if identifying {
            identifying = false
            // NIO has closed the descriptor, which took it out of the epoll set.
            if let token { ReadinessPoller.shared.forget(token) }
            token = nil
            pending = []
            pendingSender = nil
            pendingDescriptors = nil
        }
        self.context = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// The poller saw bytes: read them, here on the event loop where NIO also reads and closes.
    private func readable() {
        guard identifying, let context else { return }
        readAvailable(context)
    }

    private func readAvailable(_ context: ChannelHandlerContext) {
        while identifying && context.channel.isActive {
            switch CredentialedRead.receive(descriptor: descriptor, capacity: Self.readSize) {
            case .bytes(let bytes, let sender, let descriptors):
                absorb(bytes, from: sender, passing: descriptors, context: context)
            case .wouldBlock:
                return waitForBytes(context)
            case .endOfFile, .failed:
                // NIO reads on and meets the end or the error itself.
                return finish(context)
            }
        }
    }

    private func waitForBytes(_ context: ChannelHandlerContext) {
        if let token {
            if ReadinessPoller.shared.rearm(descriptor, token: token) { return }
        } else {
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let loop = context.eventLoop
            token = ReadinessPoller.shared.watch(descriptor) {
                loop.execute { handler.value.readable() }
            }
            if token != nil { return }
        }
        server.log("cannot watch a connection being identified: its Hello has no known sender")
        finish(context)
    }

    /// Splits what was read into frames and passes on each complete one with its writer; `descriptors` came with
    /// the read's last byte and go with the frame that holds it.
    private func absorb(
        _ bytes: [UInt8],
        from sender: FrameSender,
        passing descriptors: PassedDescriptors,
        context: ChannelHandlerContext
    ) {
        var start = 0
        while identifying, let end = bytes[start...].firstIndex(of: 0) {
            let frameSender = pendingSender.map { $0.merged(with: sender) } ?? sender
            var frame = pending
            frame.append(contentsOf: bytes[start...end])
            let frameDescriptors = pendingDescriptors ?? PassedDescriptors()
            if end == bytes.count - 1 { frameDescriptors.absorb(descriptors) }
            pending = []
            pendingSender = nil
            pendingDescriptors = nil
            start = end + 1
            if pass(frame, from: frameSender, passing: frameDescriptors, context: context) {
                pending = Array(bytes[start...])
                return finish(context)
            }
        }
        guard start < bytes.count, identifying else { return }
        pending.append(contentsOf: bytes[start...])
        pendingSender = pendingSender.map { $0.merged(with: sender) } ?? sender
        if !descriptors.isEmpty {
            let waiting = pendingDescriptors ?? PassedDescriptors()
            waiting.absorb(descriptors)
            pendingDescriptors = waiting
        }
        // A frame over the limit goes to the frame decoder, which answers and closes the connection.
        if pending.count > maximumFrameLength { finish(context) }
    }

    /// Passes one frame on; `true` when identification is over with it. The frame's descriptors are the
    /// connection's if it is the identifying call, else they are closed when this returns.
    private func pass(
        _ frame: [UInt8],
        from sender: FrameSender,
        passing descriptors: PassedDescriptors,
        context: ChannelHandlerContext
    ) -> Bool {
        state.frameSender = sender
        state.frameDescriptors = descriptors
        state.identified = false
        context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: frame)))
        state.frameSender = nil
        state.frameDescriptors = nil
        if state.identified || !context.channel.isActive { return true }
        serviceCalls += 1
        return serviceCalls > Self.maximumServiceCalls
    }

    /// Ends identification: the bytes held go on, NIO reads from here, and this handler leaves the pipeline.
    private func finish(_ context: ChannelHandlerContext) {
        guard identifying else { return }
        identifying = false
        if let token {
            if context.channel.isActive {
                ReadinessPoller.shared.unwatch(descriptor, token: token)
            } else {
                ReadinessPoller.shared.forget(token)
            }
        }
        token = nil
        // The context holds this handler: kept, it would hold the channel's pipeline for ever.
        self.context = nil
        let rest = pending
        pending = []
        pendingSender = nil
        pendingDescriptors = nil
        guard context.channel.isActive else { return }
        if !rest.isEmpty { context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: rest))) }
        guard context.channel.isActive else { return }
        // The connection turns reading on, unless the calls passed on have already filled its pipeline (F4).
        context.fireUserInboundEventTriggered(Finished())
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Identification is over: NIO may read the socket from now on, when the connection wants more calls.
    struct Finished {}

    /// The descriptor of the channel's socket, which NIO does not publish: taken from the channel's description
    /// and accepted only if its socket cookie is the one NIO reads from the channel's own socket, so that a
    /// change in NIO can make identification fail (every Hello that needs a sender is refused) but never read
    /// another socket.
    static func descriptor(of channel: Channel) -> Int32? {
        let text = String(describing: channel)
        guard let marker = text.range(of: "fd=") else { return nil }
        guard let descriptor = Int32(text[marker.upperBound...].prefix { $0.isNumber }), descriptor >= 0,
            let provider = channel as? SocketOptionProvider
        else { return nil }
        var expected: UInt64?
        let future: EventLoopFuture<UInt64> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SocketConstants.cookie)
        )
        future.assumeIsolated().whenSuccess { expected = $0 }
        var cookie: UInt64 = 0
        var length = socklen_t(MemoryLayout<UInt64>.size)
        guard let expected, getsockopt(descriptor, SOL_SOCKET, SocketConstants.cookie, &cookie, &length) == 0,
            cookie == expected
        else { return nil }
        return descriptor
    }
}
