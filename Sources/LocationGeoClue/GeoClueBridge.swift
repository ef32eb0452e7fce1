import Dispatch
import Logging
import SubordinateRanges

#if canImport(Glibc)
import Glibc
#endif

/// locd-geoclue's service: owns `org.freedesktop.GeoClue2` on the system bus and serves it from locd's sessions,
/// on the calling thread, until SIGTERM or SIGINT (a clean exit) or until the bus goes away (an error).
package struct GeoClueBridge {
    let socketPath: String?
    let limits: GeoClueLimits
    let agentWhitelist: AgentWhitelist?
    let logger: Logger

    /// - Parameters:
    ///   - socketPath: locd's socket; `nil` for the client library's default (`LOCD_SOCKET`, else the user's
    ///     daemon when one listens, else `/run/locd/io.locd`).
    ///   - agentWhitelist: GeoClue's `[agent] whitelist` (G34); `nil`: every agent is taken.
    ///   - subordinateIDs: the ranges of subordinate uids, whose uids count against their users (H9).
    package init(
        socketPath: String?,
        agentWhitelist: AgentWhitelist? = nil,
        subordinateIDs: SubordinateIDs = SubordinateIDs(),
        logger: Logger
    ) {
        self.socketPath = socketPath
        var limits = GeoClueLimits()
        limits.subordinateIDs = subordinateIDs
        self.limits = limits
        self.agentWhitelist = agentWhitelist
        self.logger = logger
    }

    package func run() throws {
        let connection = try BusConnection()
        // Before the name is taken, which tells systemd that the service is up (Type=dbus): a SIGTERM from then on
        // stops the loop (at once, should it come before the loop runs), and one before ends a process that has served
        // nobody yet.
        let signals = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { connection.stop() }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        let service = GeoClueService(connection: connection, socketPath: socketPath, limits: limits, logger: logger)
        service.agentWhitelist = agentWhitelist
        try service.register()
        logger.info(
            "serving \(GeoClueService.busName)",
            metadata: ["geoclue.locd-socket": "\(socketPath ?? "(default)")"]
        )
        // The service lives as long as the loop: sd-bus holds it as the userdata of every vtable.
        try withExtendedLifetime(service) { try connection.run() }
        logger.info("stopped")
    }
}
