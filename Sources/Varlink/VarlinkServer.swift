import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A Varlink server on a Unix socket, all of it on one event loop.
///
/// One loop keeps the daemon's state single-threaded: the delegate is called on that loop only, and
/// replies are written from it, so no lock guards the session core.
public final class VarlinkServer {
    public let eventLoop: EventLoop
    let core: VarlinkServerCore
    private var listener: Channel?

    /// - Parameters:
    ///   - interfaces: each served interface's name and its exact IDL text (`GetInterfaceDescription`).
    ///   - limitExceededError: the fully qualified error name, of one of `interfaces`, that a connection refused
    ///     by `max-connections` or `max-connections-per-uid` is answered with (its parameters: `limit`,
    ///     `maximum` and `message`).
    ///   - logger: where refusals and closures are reported.
    public init(
        info: VarlinkServiceInfo,
        interfaces: [(name: String, description: String)],
        limits: VarlinkLimits,
        limitExceededError: String,
        eventLoop: EventLoop,
        delegate: VarlinkServerDelegate,
        logger: @escaping (String) -> Void
    ) {
        self.eventLoop = eventLoop
        core = VarlinkServerCore(
            info: info,
            interfaces: interfaces,
            limits: limits,
            limitExceededError: limitExceededError,
            eventLoop: eventLoop,
            logger: logger
        )
        core.delegate = delegate
    }

    /// Whether a peer may use the admin reserve and is free of `max-connections-per-uid` (F12), from the
    /// credentials fixed when it connected. By default root and the server's own uid.
    public var isPrivileged: (PeerCredentials) -> Bool {
        get { core.isPrivileged }
        set { core.isPrivileged = newValue }
    }

    /// The uid the per-uid limit counts a peer's uid against (SEMANTICS H9); the uid itself by default.
    public var accountUID: (UInt32) -> UInt32 {
        get { core.accountUID }
        set { core.accountUID = newValue }
    }

    /// Calls run since the server started, on every connection (`org.varlink.service`'s and malformed ones
    /// included). Read on the server's loop.
    public var callsRun: UInt64 { core.callsRun }

    private func bootstrap() -> ServerBootstrap {
        let bound = NIOLoopBound(core, eventLoop: eventLoop)
        let maximum = core.limits.maximumMessageBytes
        // A connection lags once its channel holds more than the lag threshold unwritten, and stops lagging once
        // it holds less than half of it (``VarlinkConnection/isLagging``).
        let threshold = core.limits.lagThreshold
        // Connections inherit SO_PASSCRED (and SO_PASSPIDFD) from the listener, so that every byte a peer writes,
        // even before accept, carries its writer's credentials; a connection starts with autoRead off, read by
        // its IdentificationHandler until identified (SEMANTICS I4).
        // A kernel before 6.5 has no SO_PASSPIDFD (and would fail the bind): it is asked only where it exists.
        let passPidfd = SocketConstants.pidfdsSupported ? SocketConstants.passPidfd : SocketConstants.passCredentials
        return ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 1024)
            // A look at the sockets accepts up to 64 waiting connections, not NIO's 4: behind a burst of one user's
            // connects, an administrator's waits a few looks (each running a share of calls, F19), not one look
            // for every 4 of them.
            .serverChannelOption(.maxMessagesPerRead, value: 64)
            .serverChannelOption(.socketOption(.init(rawValue: SocketConstants.passCredentials)), value: 1)
            .serverChannelOption(.socketOption(.init(rawValue: passPidfd)), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let backoff = AcceptBackoffHandler(shouldForwardIOErrorCaught: false) { error in
                        bound.value.acceptFailed(error, listener: channel)
                    }
                    try channel.pipeline.syncOperations.addHandler(backoff)
                }
            }
            .childChannelOption(.writeBufferWaterMark, value: .init(low: max(1, threshold / 2), high: threshold))
            .childChannelOption(.autoRead, value: false)
            // One read per connection per look of the loop at its sockets, so that a connection's turn is one
            // read's worth of calls at most (F17).
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let identification = IdentificationState()
                    let handlers: [ChannelHandler] = [
                        IdentificationHandler(state: identification, maximumFrameLength: maximum, server: bound.value),
                        ByteToMessageHandler(VarlinkFrameDecoder(maximumFrameLength: maximum)),
                        VarlinkConnectionHandler(server: bound.value, identification: identification),
                    ]
                    try channel.pipeline.syncOperations.addHandlers(handlers)
                }
            }
    }

    /// Listens on `path`, replacing a stale socket file, with `mode` (0666 by default: apps must reach it).
    ///
    /// The socket never appears at `path` with another mode, whatever the umask: it is bound in a fresh directory
    /// of mode 0700 beside `path` (``PrivateBind``), given `mode` there, and linked into place. Bound at `path` and
    /// changed afterwards, a socket meant for one user was open to every user for a moment under a permissive umask.
    ///
    /// A socket at `path` that a process still listens on is never replaced: the future fails with
    /// ``SocketInUse`` naming that process (SEMANTICS R14). One that refuses connections is stale, and replaced.
    public func bind(path: String, mode: mode_t = 0o666) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        let bootstrap = bootstrap()
        let place: PrivateBind
        do {
            place = try PrivateBind(target: path)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        return installTurnBell().assumeIsolated()
            .flatMap { bootstrap.bind(unixDomainSocketPath: place.temporary, cleanupExistingSocketFile: false) }
            .flatMapErrorThrowing { error in
                place.abandon()
                throw error
            }
            .flatMapThrowing { [self] channel in
                do {
                    try place.publish(mode: mode)
                } catch {
                    channel.close(promise: nil)
                    throw error
                }
                listener = channel
            }.nonisolated()
    }

    /// Serves on a listening socket handed over by systemd (socket activation).
    public func adopt(descriptor: CInt) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        let bootstrap = bootstrap()
        return installTurnBell().assumeIsolated().flatMap { bootstrap.withBoundSocket(descriptor) }
            .map { [self] channel in
                listener = channel
            }.nonisolated()
    }

    private func installTurnBell() -> EventLoopFuture<Void> {
        TurnBell.install(on: core).assumeIsolated().map { [core] bell in core.turnBell = bell }.nonisolated()
    }

    /// Stops listening and closes every connection.
    public func close() {
        listener?.close(promise: nil)
        for connection in core.connections.values { connection.close() }
    }

    /// The IDL of `org.varlink.service`, as the Varlink specification gives it.
    public static let serviceDescription = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the supplied parameters
        # are not understood.
        error InvalidParameter (parameter: string)

        # The service requires a call with more: true
        error ExpectedMore ()

        # The caller is not allowed to call this method.
        error PermissionDenied ()
        """
}
