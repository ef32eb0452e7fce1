import ArgumentParser
import LocationConfiguration
import LocationDaemon
import LogLevelArgument
import Logging
import NIOPosix
import ServiceLifecycle
import SystemdSupport

#if canImport(Glibc)
import Glibc
#endif

/// `locd`: the location-session daemon. Thin: options in, the daemon service out. Started by ``main()``, from the
/// `locd` executable and from the multi-call binary run as `locd`.
package struct Locd: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "locd",
        abstract: "The location-session daemon: Core Location's authorization model and CLServiceSession over Varlink.",
        discussion: """
            locd serves io.locd.App (apps) and io.locd.Admin (locctl, agents) on one Unix socket. \
            It reads /etc/locd/locd.toml (a missing default file means built-in defaults), then \
            locd.toml.d/*.toml beside it in name order; the options below override the files. \
            Under systemd it adopts a socket-activated listener and reports READY=1, STATUS=, \
            WATCHDOG=1, RELOADING=1 and STOPPING=1. SIGHUP reloads config and manifests; SIGTERM stops. \
            Exit codes: 0 stopped, 73 store or socket cannot be created (another locd holds the state \
            directory's lock, or a process already listens on the socket), 78 invalid configuration.
            """,
        version: "0.1.0"
    )

    @Option(name: .long, help: "The configuration file.")
    var config: String?

    @Option(
        name: .long,
        help: "The socket to listen on (default: /run/locd/io.locd, or $XDG_RUNTIME_DIR/locd/io.locd)."
    )
    var socket: String?

    @Option(name: .customLong("state-dir"), help: "Where the store (locd.sqlite) lives.")
    var stateDirectory: String?

    @Option(
        name: .customLong("apps-dir"),
        help: "A directory of app manifests, after the configured ones (repeatable)."
    )
    var appsDirectories: [String] = []

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    package init() {}

    package func run() async throws {
        let environment = ProcessEnvironment.current
        let level = logLevel
        let journal = Systemd.runningUnderSystemd(environment: environment)
        LoggingSystem.bootstrap { Systemd.makeLogHandler(label: $0, underSystemd: journal, logLevel: level) }
        let logger = Logger(label: "locd")
        var options = DaemonOptions(
            configPath: config,
            socket: socket,
            stateDirectory: stateDirectory,
            appsDirectories: appsDirectories,
            environment: environment
        )
        options.version = Self.configuration.version
        // Read once, before the service group runs, so that a bad file stops start-up with exactly one line.
        let configuration: DaemonConfiguration
        do {
            configuration = try Daemon.configuration(options)
        } catch let error as StartupError {
            logger.critical("\(error.description)")
            throw ArgumentParser.ExitCode(error.code.rawValue)
        }
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = loops.next()
        let daemon = Daemon(configuration: configuration, options: options, eventLoop: loop, logger: logger)
        // The daemon last: graceful shutdown stops it first, and the watchdog pings while it stops.
        var services: [any Service] = []
        if let interval = Systemd.watchdogInterval() {
            services.append(Watchdog(eventLoop: loop, interval: interval, after: daemon.ready))
        }
        services.append(daemon)
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        do {
            try await group.run()
        } catch let error as StartupError {
            logger.critical("\(error.description)")
            throw ArgumentParser.ExitCode(error.code.rawValue)
        }
        try? await loops.shutdownGracefully()
    }
}
