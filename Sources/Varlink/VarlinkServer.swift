import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// What `org.varlink.service.GetInfo` answers.
public struct VarlinkServiceInfo: Sendable, Hashable {
    public var vendor: String
    public var product: String
    public var version: String
    public var url: String

    public init(vendor: String, product: String, version: String, url: String) {
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
    }
}

/// The limits of PROTOCOL.md "Limits and bad input".
public struct VarlinkLimits: Sendable, Hashable {
    public var maximumConnections: Int
    public var maximumMessageBytes: Int
    public var maximumWriteBuffer: Int
    /// How many unwritten ``StreamBacklog/dropOldest`` replies a lagging connection keeps (`max-queued-updates`).
    public var maximumQueuedReplies: Int

    public init(
        maximumConnections: Int = 4096,
        maximumMessageBytes: Int = 1 << 20,
        maximumWriteBuffer: Int = 4 << 20,
        maximumQueuedReplies: Int = 64
    ) {
        self.maximumConnections = maximumConnections
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumWriteBuffer = maximumWriteBuffer
        self.maximumQueuedReplies = maximumQueuedReplies
    }

    /// Unwritten bytes past which a connection counts as lagging and its stream replies are held back:
    /// 64 KiB (far beyond what a reading client leaves unwritten), or half of `max-write-buffer` if smaller.
    var lagThreshold: Int { max(1, min(65_536, maximumWriteBuffer / 2)) }
}

/// The loop-bound heart of a server: connections, `org.varlink.service`, and routing to the delegate.
final class VarlinkServerCore {
    weak var delegate: VarlinkServerDelegate?
    let info: VarlinkServiceInfo
    let interfaces: [(name: String, description: String)]
    let limits: VarlinkLimits
    let logger: (String) -> Void
    private var nextID: UInt64 = 1
    private(set) var connections: [UInt64: VarlinkConnection] = [:]
    let eventLoop: EventLoop
    /// Connections written to in this event-loop turn, flushed together after it.
    private var unflushed: [VarlinkConnection] = []
    private var unflushedIDs: Set<UInt64> = []

    var maximumWriteBuffer: Int { limits.maximumWriteBuffer }

    init(
        info: VarlinkServiceInfo,
        interfaces: [(name: String, description: String)],
        limits: VarlinkLimits,
        eventLoop: EventLoop,
        logger: @escaping (String) -> Void
    ) {
        self.info = info
        self.interfaces = interfaces
        self.limits = limits
        self.eventLoop = eventLoop
        self.logger = logger
    }

    func log(_ message: String) { logger(message) }

    /// Flushes `connection` once, after the tasks and reads already queued on the loop: every frame the
    /// turn writes to it leaves in one system call.
    func needsFlush(_ connection: VarlinkConnection) {
        guard unflushedIDs.insert(connection.id).inserted else { return }
        unflushed.append(connection)
        guard unflushed.count == 1 else { return }
        eventLoop.assumeIsolated().execute { [self] in flushAll() }
    }

    private func flushAll() {
        // A flush can complete at once and write a held backlog, which asks for the next flush.
        let batch = unflushed
        unflushed.removeAll(keepingCapacity: true)
        unflushedIDs.removeAll(keepingCapacity: true)
        for connection in batch { connection.flush() }
    }

    /// A new connection, or `nil` past `max-connections` (it is closed at once, never left hanging).
    func accept(_ channel: Channel) -> VarlinkConnection? {
        guard connections.count < limits.maximumConnections else {
            log("refusing a connection: \(connections.count) open, max-connections is \(limits.maximumConnections)")
            return nil
        }
        let connection = VarlinkConnection(id: nextID, channel: channel, server: self)
        nextID += 1
        connections[connection.id] = connection
        return connection
    }

    func release(_ connection: VarlinkConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        delegate?.closed(connection)
    }

    func dispatch(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        let interface = call.interface
        if interface == "org.varlink.service" {
            return serviceCall(call, serial: serial, on: connection)
        }
        guard interfaces.contains(where: { $0.name == interface }) else {
            return connection.fail(serial, .interfaceNotFound(interface))
        }
        guard let delegate else { return connection.fail(serial, .methodNotFound(call.method)) }
        delegate.received(call, serial: serial, on: connection)
    }

    private func serviceCall(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        switch call.memberName {
        case "GetInfo":
            let names = ["org.varlink.service"] + interfaces.map(\.name)
            connection.reply(
                serial,
                [
                    "vendor": .string(info.vendor), "product": .string(info.product),
                    "version": .string(info.version), "url": .string(info.url),
                    "interfaces": .array(names.map { .string($0) }),
                ]
            )
        case "GetInterfaceDescription":
            guard let name = call.parameters["interface"]?.stringValue else {
                return connection.fail(serial, .invalidParameter("interface", message: "expected an interface name"))
            }
            if name == "org.varlink.service" {
                return connection.reply(serial, ["description": .string(VarlinkServer.serviceDescription)])
            }
            guard let interface = interfaces.first(where: { $0.name == name }) else {
                return connection.fail(serial, .interfaceNotFound(name))
            }
            connection.reply(serial, ["description": .string(interface.description)])
        default:
            connection.fail(serial, .methodNotFound(call.method))
        }
    }
}

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
    ///   - logger: where refusals and closures are reported.
    public init(
        info: VarlinkServiceInfo,
        interfaces: [(name: String, description: String)],
        limits: VarlinkLimits,
        eventLoop: EventLoop,
        delegate: VarlinkServerDelegate,
        logger: @escaping (String) -> Void
    ) {
        self.eventLoop = eventLoop
        core = VarlinkServerCore(
            info: info,
            interfaces: interfaces,
            limits: limits,
            eventLoop: eventLoop,
            logger: logger
        )
        core.delegate = delegate
    }

    /// Open connections.
    public var connectionCount: Int { core.connections.count }

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
            .serverChannelOption(.socketOption(.init(rawValue: SocketConstants.passCredentials)), value: 1)
            .serverChannelOption(.socketOption(.init(rawValue: passPidfd)), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: max(1, threshold / 2), high: threshold))
            .childChannelOption(.autoRead, value: false)
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

    /// Listens on `path`, replacing a stale socket file, with mode 0666 (apps must reach it).
    public func bind(path: String) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        return bootstrap().bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
            .assumeIsolated().map { [self] channel in
                chmod(path, 0o666)
                listener = channel
            }.nonisolated()
    }

    /// Serves on a listening socket handed over by systemd (socket activation).
    public func adopt(descriptor: CInt) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        return bootstrap().withBoundSocket(descriptor).assumeIsolated().map { [self] channel in
            listener = channel
        }.nonisolated()
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
