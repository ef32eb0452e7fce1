import Foundation
import LocationProtocol
import Logging
import NIOCore
import NIOPosix
import Varlink

/// `locd-network` running: one event loop serving `io.locd.NetworkLocation` on a Unix socket, either the one
/// systemd passed or one it binds itself.
public final class NetworkLocationServer {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let client: GeolocateClient
    private let server: VarlinkServer
    private let logger: Logger

    /// - Parameters:
    ///   - requestDeadline: how long one request to the geolocation service may take in all (U22).
    ///   - idleTimeout: how long a connection may stay open without a call (F13).
    ///   - userAgent: the `User-Agent` of every request (U19).
    ///   - proxy: the proxy the environment names, and the hosts reached without it (U23).
    ///   - caFile: the certificates that replace the system's trust store (U23).
    public init(
        requestDeadline: Duration,
        idleTimeout: TimeAmount = .seconds(10),
        userAgent: String = UserAgent.make(osRelease: nil),
        proxy: ProxySettings = ProxySettings(server: nil),
        caFile: CAFile? = nil,
        logger: Logger
    ) {
        let loop = group.next()
        client = GeolocateClient(deadline: requestDeadline, userAgent: userAgent, proxy: proxy, caFile: caFile)
        self.logger = logger
        let service = NetworkLocationService(loop: loop, client: client, logger: logger)
        server = VarlinkServer(
            info: VarlinkServiceInfo(
                vendor: "locd",
                product: "locd-network",
                version: UserAgent.version,
                url: UserAgent.projectURL
            ),
            interfaces: [(InterfaceName.networkLocation, LocationInterfaces.networkLocation)],
            limits: VarlinkLimits(
                maximumConnections: 16,
                maximumConnectionsPerUID: 16,
                adminReserve: 4,
                idleTimeout: idleTimeout
            ),
            limitExceededError: WireErrorName.networkLimitExceeded.name,
            eventLoop: loop,
            delegate: service,
            logger: { logger.warning("\($0)") }
        )
        // The service lives as long as the server: the server holds its delegate weakly.
        retained = service
    }

    private let retained: NetworkLocationService

    /// Serves on `descriptor`, a listening socket systemd passed.
    public func adopt(descriptor: Int32) throws {
        // The server is used on its loop only: the closure runs there.
        nonisolated(unsafe) let server = self.server
        try server.eventLoop.flatSubmit { server.adopt(descriptor: descriptor) }.wait()
        logger.info("serving on the socket systemd passed (fd \(descriptor))")
    }

    /// Binds `path` (its missing directories made 0755, whatever the umask: no other user may replace the socket)
    /// and serves on it.
    public func bind(path: String) throws {
        try Self.makeDirectories(of: path)
        // The server is used on its loop only: the closure runs there.
        nonisolated(unsafe) let server = self.server
        // Only its own user may connect, as locd-network.socket's SocketMode=0600 has it for locd: the socket
        // appears with that mode, never with the umask's first (U27).
        try server.eventLoop.flatSubmit { server.bind(path: path, mode: 0o600) }.wait()
        logger.info("serving on \(path)")
    }

    /// Makes the missing directories above `path`, each 0755 and no wider: made with the umask's mode, a directory
    /// anyone may write to would let any user swap the socket for one of their own.
    private static func makeDirectories(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            guard mkdir(prefix, 0o755) == 0 else {
                if errno == EEXIST { continue }
                throw IOError(errnoCode: errno, reason: "cannot create \(prefix)")
            }
        }
    }

    /// Stops serving and closes the HTTP client.
    public func shutdown() {
        // The server is used on its loop only: the closure runs there.
        nonisolated(unsafe) let server = self.server
        try? server.eventLoop.submit { server.close() }.wait()
        let client = self.client
        let done = DispatchSemaphore(value: 0)
        Task {
            await client.shutdown()
            done.signal()
        }
        done.wait()
        try? group.syncShutdownGracefully()
    }
}
