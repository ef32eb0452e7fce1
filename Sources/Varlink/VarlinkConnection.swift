import JSON
import LocationProtocol
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// What a Varlink server does with calls; every method runs on the server's one event loop.
public protocol VarlinkServerDelegate: AnyObject {
    /// A connection was accepted and its credentials read.
    func opened(_ connection: VarlinkConnection)
    /// A call to one of the served interfaces; answer it with ``VarlinkConnection/reply(_:_:continues:)``
    /// or ``VarlinkConnection/fail(_:_:)`` (at once or later). The next call on the connection waits
    /// until the final reply (oneway calls need none).
    func received(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection)
    /// The connection closed, for any reason.
    func closed(_ connection: VarlinkConnection)
}

/// What a connection may do with a stream's `continues` replies while its peer is not reading.
///
/// A connection lags once more than ``VarlinkLimits/lagThreshold`` bytes wait to be written, and has caught
/// up once fewer than half as many do. Its held replies then go out, in order, and always before any final
/// reply.
public enum StreamBacklog: Sendable, Hashable {
    /// Every reply is written; a peer that never reads is closed at `max-write-buffer`.
    case keepAll
    /// The reply is state (a diagnostic, an authorization): while the peer lags only the newest one is
    /// kept, and none at all if it equals the last one written, so coalescing loses nothing and never
    /// repeats a value.
    case keepNewest
    /// The reply is one of a series (location updates): while the peer lags at most
    /// ``VarlinkLimits/maximumQueuedReplies`` are kept, and the oldest are dropped.
    case dropOldest
}

/// One client connection. Loop-bound: use it only on the server's event loop.
public final class VarlinkConnection {
    public let id: UInt64
    public private(set) var credentials: PeerCredentials?
    /// The connection's identifying call (its first that is not to `org.varlink.service`) and who wrote it.
    private var identifyingCall: (serial: UInt64, sender: FrameSender, descriptors: PassedDescriptors)?
    let channel: Channel
    let server: VarlinkServerCore
    /// Calls read and waiting for their turn, as their frames: parsed when they are dispatched, so that a
    /// waiting call costs its bytes and no more, and a bad one is answered in its turn (F4).
    private var queue = CircularBuffer<(serial: UInt64, frame: ByteBuffer, cost: Int)>(initialCapacity: 4)
    /// The bytes the frames in ``queue`` hold.
    private var queuedBytes = 0
    /// Whether reading from the socket is stopped because ``queue`` is full (F4).
    private var readingPaused = false
    private var current: UInt64?
    private var nextSerial: UInt64 = 1
    /// Whose share the connection's calls count against (F19), once the server has asked: its own if it is an
    /// administrator's, else its peer's uid, or, for a broker's connection once its `Hello` is accepted, the uid of
    /// the process it speaks for (F11).
    var principal: Turns.Principal?
    /// Whether its peer is an administrator (F12), once the server has asked.
    var isAdministrator: Bool?
    /// Whether the connection waits for its next turn (``VarlinkServerCore/awaitTurn(_:)``).
    private var continuationScheduled = false
    private var ready = false
    public private(set) var isClosed = false
    /// Everything unwritten the connection holds, as memory (F5): the frames the channel holds, the turn's
    /// frames not yet handed to it (their buffer's whole capacity once they are gathered in one), and the
    /// replies held back while the peer lags.
    public var pendingWriteBytes: Int {
        unflushedCost + heldBytes + ((try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0)
    }
    /// Stream replies held back while the peer lags, already encoded (see ``StreamBacklog``), and their bytes.
    private var backlog: [ByteBuffer] = []
    private var heldBytes = 0
    /// The policy of the replies in ``backlog`` (a connection carries one stream at a time).
    private var backlogPolicy = StreamBacklog.keepAll
    /// The newest ``StreamBacklog/keepNewest`` reply written for the current call.
    private var lastWrittenState: ByteBuffer?
    /// Stream replies dropped under ``StreamBacklog/dropOldest`` since the connection opened.
    public private(set) var droppedReplies = 0
    /// The frames written since the last ``flush()`` (the first as it came, or a buffer of them all), how
    /// many they are, and their bytes.
    private var unflushedFrame: ByteBuffer?
    private var unflushedCount = 0
    private var unflushedBytes = 0

    init(id: UInt64, channel: Channel, server: VarlinkServerCore) {
        self.id = id
        self.channel = channel
        self.server = server
    }

    func becameReady(_ credentials: PeerCredentials?) {
        self.credentials = credentials
        guard server.admit(self) else { return }
        ready = true
        server.delegate?.opened(self)
        dispatchNext()
    }

    /// Takes one frame read from the socket; it is dispatched in its turn.
    ///
    /// A connection answers one call at a time, and the next waits until the final reply. Frames read in the
    /// meantime wait here, up to `max-pipelined-calls` of them or `max-message-bytes` in all: then the
    /// connection stops reading, and the peer's further calls wait in the socket, at its cost (F4). A read
    /// can hand over more than that at once (what one read of the socket holds, at most a frame's bytes past
    /// the limit), so the queue holds at most twice `max-message-bytes` and a read's bytes.
    /// - Parameters:
    ///   - sender: who wrote the frame, when it is the connection's identifying call (SEMANTICS I4).
    ///   - descriptors: what was passed with that frame's bytes (SEMANTICS I10).
    func enqueue(_ frame: ByteBuffer, sender: FrameSender? = nil, descriptors: PassedDescriptors? = nil) {
        server.heard(from: self)
        if let sender { identifyingCall = (nextSerial, sender, descriptors ?? PassedDescriptors()) }
        var frame = frame
        var cost = frame.readableBytes
        if !queue.isEmpty || current != nil || !ready || isLagging {
            // A frame that waits gets a buffer of its own: a slice would keep the whole buffer the frames
            // were read into alive, up to a megabyte for a frame of a few bytes.
            var own = channel.allocator.buffer(capacity: frame.readableBytes)
            own.writeImmutableBuffer(frame)
            frame = own
            cost = own.capacity
        }
        queue.append((nextSerial, frame, cost))
        queuedBytes += cost
        nextSerial += 1
        dispatchNext()
        if !readingPaused,
            queue.count >= server.limits.maximumPipelinedCalls
                || queuedBytes >= server.limits.maximumMessageBytes
        {
            readingPaused = true
            channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        }
    }

    /// Dispatches the waiting calls in order while no call is being answered and the peer reads its replies:
    /// a peer that lags gets no new reply to leave unread, so a pipeline that never reads costs the lag
    /// threshold, not `max-write-buffer` (F5).
    private func dispatchNext() {
        while isRunnable && !queue.isEmpty {
            // F19: its uid (or, an administrator's, the connection) has used its share of the round; the rest
            // wait for the next.
            guard server.mayRun(self) else {
                continueLater()
                break
            }
            let (serial, frame, cost) = queue.removeFirst()
            queuedBytes -= cost
            switch VarlinkCall.decode(frame.readableBytesView) {
            case .success(let call):
                if !call.oneway { current = serial }
                server.dispatch(call, serial: serial, on: self)
                // The delegate has checked the identifying call as it received it: its sender's pidfd and the
                // descriptors passed with it go now, not with the connection (10,000 connections would hold
                // 10,000 more descriptors).
                if identifyingCall?.serial == serial { identifyingCall = nil }
            case .failure(let error):
                // The framing is intact, so the connection stays usable; the error is this call's reply.
                write(frame: VarlinkEncodedReply(VarlinkReply(error: error)).frame, final: true)
            }
        }
        if readingPaused && !isClosed && queue.count <= server.limits.maximumPipelinedCalls / 2
            && queuedBytes <= server.limits.maximumMessageBytes / 2
        {
            readingPaused = false
            channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
    }

    /// The ``IdentificationHandler`` has passed on every byte it read: NIO reads the socket from now on, unless
    /// those calls already fill the pipeline (F4), when it waits until half of them have run, as any read would.
    func identificationFinished() {
        guard !readingPaused, !isClosed else { return }
        channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
    }

    /// Whether the next waiting call may run now: the connection is identified and open, no call is being
    /// answered, and the peer reads its replies (F5).
    private var isRunnable: Bool { ready && !isClosed && current == nil && !isLagging }

    /// Runs the waiting calls at the connection's next turn, once the loop has looked at every socket (F17, F19).
    private func continueLater() {
        guard !continuationScheduled else { return }
        continuationScheduled = true
        server.awaitTurn(self)
    }

    /// The connection's next turn: its waiting calls run while its uid's share lasts.
    func takeTurn() {
        continuationScheduled = false
        dispatchNext()
    }

    /// Sends a reply to the call `serial`; a final one (no `continues`) lets the next call in.
    /// - Parameter backlog: what may happen to a `continues` reply while the peer is not reading.
    public func reply(
        _ serial: UInt64,
        _ parameters: JSONObject = [:],
        continues: Bool = false,
        backlog policy: StreamBacklog = .keepAll
    ) {
        guard !isClosed, serial == current else { return }
        send(serial, VarlinkEncodedReply(VarlinkReply(parameters: parameters, continues: continues)), policy: policy)
    }

    /// Sends a reply encoded beforehand: the same bytes may go to many connections (a state change that
    /// thousands of streams see is encoded once).
    public func reply(_ serial: UInt64, _ encoded: VarlinkEncodedReply, backlog policy: StreamBacklog = .keepAll) {
        guard !isClosed, serial == current else { return }
        send(serial, encoded, policy: policy)
    }

    /// Sends an error reply to the call `serial`, ending it.
    public func fail(_ serial: UInt64, _ error: VarlinkError) {
        guard !isClosed, serial == current else { return }
        send(serial, VarlinkEncodedReply(VarlinkReply(error: error)), policy: .keepAll)
    }

    /// Who wrote the call `serial`, if it is the connection's identifying call: the first call that is not to
    /// `org.varlink.service`, read while the connection was being identified (SEMANTICS I4). `nil` for every
    /// other call, whose writer is not known, and once the delegate's `received` for it has returned.
    public func sender(of serial: UInt64) -> FrameSender? {
        guard let identifyingCall, identifyingCall.serial == serial else { return nil }
        return identifyingCall.sender
    }

    /// The descriptors passed (`SCM_RIGHTS`) with the bytes of the call `serial`, if it is the connection's
    /// identifying call, while the delegate's `received` for it runs; they are closed when it returns, so a
    /// delegate that keeps one must `dup` it. `nil` for every other call, whose descriptors were closed as they
    /// came.
    public func descriptors(of serial: UInt64) -> PassedDescriptors? {
        guard let identifyingCall, identifyingCall.serial == serial else { return nil }
        return identifyingCall.descriptors
    }

    /// The call that is being answered now, if any.
    public var currentCall: UInt64? { current }

    private func send(_ serial: UInt64, _ reply: VarlinkEncodedReply, policy: StreamBacklog) {
        let frame = reply.frame
        if reply.continues && policy != .keepAll && (isLagging || !backlog.isEmpty) {
            hold(frame, policy: policy)
            return
        }
        writeBacklog()
        if policy == .keepNewest { lastWrittenState = frame }
        write(frame: frame, final: !reply.continues)
        if !reply.continues {
            current = nil
            lastWrittenState = nil
            dispatchNext()
        }
    }

    /// Whether the peer is behind: its channel went past the lag threshold and has not yet come back under half
    /// of it (the channel's write-buffer water marks), or this turn queued more than the threshold for it.
    private var isLagging: Bool { !channel.isWritable || unflushedBytes >= server.limits.lagThreshold }

    private func hold(_ frame: ByteBuffer, policy: StreamBacklog) {
        backlogPolicy = policy
        switch policy {
        case .keepAll:
            backlog.append(frame)
        case .keepNewest:
            backlog.removeAll(keepingCapacity: true)
            if frame != lastWrittenState { backlog.append(frame) }
        case .dropOldest:
            backlog.append(frame)
            if backlog.count > server.limits.maximumQueuedReplies {
                backlog.removeFirst(backlog.count - server.limits.maximumQueuedReplies)
                droppedReplies += 1
            }
        }
        heldBytes = backlog.reduce(0) { $0 + $1.readableBytes }
    }

    /// Writes the held replies, oldest first.
    private func writeBacklog() {
        guard !backlog.isEmpty else { return }
        let held = backlog
        backlog.removeAll(keepingCapacity: true)
        heldBytes = 0
        for frame in held {
            if backlogPolicy == .keepNewest { lastWrittenState = frame }
            write(frame: frame)
        }
    }

    /// Writes one raw frame; past the write-buffer limit the connection is closed instead (PROTOCOL limits).
    func write(_ text: String) {
        var buffer = channel.allocator.buffer(capacity: text.utf8.count + 1)
        buffer.writeString(text)
        buffer.writeInteger(UInt8(0))
        write(frame: buffer, final: true)
    }

    /// What the turn's frames not yet handed to the channel cost: the one frame as it came, or the whole
    /// capacity of the buffer they are gathered in.
    private var unflushedCost: Int {
        guard let frame = unflushedFrame else { return 0 }
        return unflushedCount == 1 ? frame.readableBytes : frame.capacity
    }

    /// Writes one frame, its NUL included; past the write-buffer limit the connection is closed instead.
    ///
    /// The frame is queued, not flushed: the server flushes each connection once, after the event-loop
    /// turn that wrote to it, so a turn's replies and stream messages leave in one `writev` instead of a
    /// system call each (10,000 expiries' events, or a burst of replies, cost one flush per connection).
    ///
    /// A final reply to a peer that has caught up is written whatever its size (F8): the peer reads it or
    /// its next call never runs (``dispatchNext()``), so it is the one such reply the connection holds, and
    /// its size is bounded by what it lists (`max-conditions-per-app`, the apps there are). Stream messages
    /// and replies to a lagging peer count against `max-write-buffer`.
    func write(frame buffer: ByteBuffer, final: Bool = false) {
        let size = buffer.readableBytes
        let limit = server.maximumWriteBuffer
        // A writable channel holds at most the lag threshold: only past that is the exact count asked for.
        if !channel.isWritable || unflushedCost + heldBytes + size + server.limits.lagThreshold > limit {
            let before = pendingWriteBytes
            let exempt = final && before <= server.limits.lagThreshold
            if !exempt && before + size > limit {
                server.log("closing connection \(id): \(before + size) bytes unread, over max-write-buffer")
                close()
                return
            }
        }
        // A turn's frames leave in one buffer, in the one write of the flush. The first is kept as it came,
        // so a frame shared by thousands of streams is not copied for a connection that gets only it; a
        // second one starts a buffer of the connection's own, and the rest are appended to it: a stream that
        // gets thousands of events in one turn hands the channel one write, not thousands.
        if var pending = unflushedFrame {
            unflushedFrame = nil
            if unflushedCount == 1 {
                var own = channel.allocator.buffer(capacity: max(2 * (pending.readableBytes + size), 4096))
                own.writeImmutableBuffer(pending)
                pending = own
            }
            pending.writeImmutableBuffer(buffer)
            unflushedFrame = pending
        } else {
            unflushedFrame = buffer
        }
        unflushedCount += 1
        unflushedBytes += size
        server.needsFlush(self)
    }

    /// Hands the frames written since the last flush to the socket.
    ///
    /// No promise: what stays unwritten is the channel's to count (``pendingWriteBytes``), and its water marks
    /// say when the peer falls behind and catches up (``writabilityChanged()``). A promise per flush, with its
    /// future and callback, cost more than the rest of the flush apart from the system call.
    ///
    /// While the channel holds more than the lag threshold the frames stay here, gathered in one buffer:
    /// handed to the channel one turn at a time, each small frame would cost the channel's bookkeeping and
    /// a buffer of its own, several times its bytes, uncounted (F5).
    func flush(force: Bool = false) {
        guard let last = unflushedFrame, force || channel.isWritable else { return }
        unflushedFrame = nil
        unflushedCount = 0
        unflushedBytes = 0
        channel.writeAndFlush(last, promise: nil)
        // Replies held because this turn's frames alone passed the threshold go out if all of them did, and
        // the next call runs; not when the connection is closing.
        if !force { writabilityChanged() }
    }

    /// The channel crossed a water mark, or took a flush: once the peer has caught up, the held replies go out.
    func writabilityChanged() {
        guard !isClosed else { return }
        if unflushedFrame != nil && channel.isWritable { server.needsFlush(self) }
        if !backlog.isEmpty && !isLagging { writeBacklog() }
        dispatchNext()
    }

    /// The connection speaks for a process of `uid` from now on (a broker's, SEMANTICS I8): it counts as one of that
    /// uid's connections against the limits (F10, F11), with none of its writer's privilege (F12).
    /// - Returns: the `LimitExceeded` error it is refused with instead, to answer before closing it; `nil` when it
    ///   counts as `uid`'s.
    public func speaks(forUID uid: UInt32, pid: Int32) -> VarlinkError? {
        server.attribute(self, to: uid, pid: pid)
    }

    /// Closes the connection; ``VarlinkServerDelegate/closed(_:)`` follows.
    public func close() {
        guard !isClosed else { return }
        flush(force: true)
        isClosed = true
        channel.close(promise: nil)
    }

    func markClosed() {
        isClosed = true
        queue.removeAll()
        queuedBytes = 0
        identifyingCall = nil
        backlog.removeAll()
        heldBytes = 0
        unflushedFrame = nil
        unflushedCount = 0
        unflushedBytes = 0
    }
}

/// The channel handler that turns frames into calls for one ``VarlinkConnection``.
final class VarlinkConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let server: VarlinkServerCore
    private let identification: IdentificationState
    private var connection: VarlinkConnection?

    init(server: VarlinkServerCore, identification: IdentificationState) {
        self.server = server
        self.identification = identification
    }

    func channelActive(context: ChannelHandlerContext) {
        let connection = server.accept(context.channel)
        self.connection = connection
        guard let connection else {
            context.close(promise: nil)
            return
        }
        // The IdentificationHandler before this one has read SO_PEERCRED and SO_PEERGROUPS.
        connection.becameReady(identification.credentials)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let connection else { return }
        let frame = unwrapInboundIn(data)
        // Set only while the connection is being identified: the writer of this frame. Its first call that
        // is not to org.varlink.service identifies it, and ends the phase; so does a frame that is no call.
        guard let sender = identification.frameSender else { return connection.enqueue(frame) }
        identification.frameSender = nil
        // Taken here, so that the descriptors of any frame but the identifying call are closed with this read.
        let descriptors = identification.frameDescriptors
        identification.frameDescriptors = nil
        switch VarlinkCall.decode(frame.readableBytesView) {
        case .success(let call) where call.interface != InterfaceName.service:
            identification.identified = true
            connection.enqueue(frame, sender: sender, descriptors: descriptors)
        case .success:
            connection.enqueue(frame)
        case .failure:
            identification.identified = true
            connection.enqueue(frame)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdentificationHandler.Finished {
            connection?.identificationFinished()
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        connection?.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let connection {
            connection.markClosed()
            server.release(connection)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let tooLarge = error as? VarlinkFrameDecoder.FrameTooLarge, let connection {
            var text = ""
            VarlinkReply(
                error: .invalidParameter(
                    "",
                    message: "message larger than max-message-bytes (\(tooLarge.maximum)): split it or raise the limit"
                )
            ).write(to: &text)
            connection.write(text)
            server.log("closing connection \(connection.id): message over \(tooLarge.maximum) bytes")
            connection.flush(force: true)
        }
        context.close(promise: nil)
    }
}
