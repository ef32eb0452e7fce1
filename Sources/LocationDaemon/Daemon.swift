import LocationConfiguration
import Logging
import NIOCore
import ServiceLifecycle
import SystemdSupport
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// `locd` as a long-running ``Service``: start-up in the order of R4, then serve until told to stop.
///
/// Start-up (``DaemonStartup``): open store → discard stale state → re-arm deadlines → listen → `READY=1`.
/// `SIGHUP` reloads config and manifests (M2, ``Reloader``) between `RELOADING=1` and `READY=1`; graceful
/// shutdown (`SIGTERM`) sends `STOPPING=1`, closes every connection and exits 0.
package final class Daemon: Service {
    private let configuration: DaemonConfiguration
    private let options: DaemonOptions
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let started: EventLoopPromise<Void>
    /// Succeeds once start-up has sent `READY=1`; fails if start-up fails. The watchdog pings only after it.
    package var ready: EventLoopFuture<Void> { started.futureResult }

    /// - Parameters:
    ///   - configuration: the configuration ``configuration(_:)`` read, with the command line's overrides.
    ///   - eventLoop: the one loop everything runs on; the caller shuts its group down once the daemon stops.
    package init(configuration: DaemonConfiguration, options: DaemonOptions, eventLoop: any EventLoop, logger: Logger) {
        self.configuration = configuration
        self.options = options
        self.eventLoop = eventLoop
        self.logger = logger
        started = eventLoop.makePromise()
    }

    /// Reads and checks the configuration with the command line's overrides.
    package static func configuration(_ options: DaemonOptions) throws -> DaemonConfiguration {
        var configuration: DaemonConfiguration
        do {
            configuration = try DaemonConfiguration.load(path: options.configPath)
        } catch {
            throw StartupError(description: error.description, code: .configuration)
        }
        if let socket = options.socket { configuration.socket = socket }
        if let state = options.stateDirectory { configuration.stateDirectory = state }
        configuration.appsDirectories += options.appsDirectories
        return configuration
    }

    package func run() async throws {
        let startup = DaemonStartup(
            configuration: configuration,
            options: options,
            eventLoop: eventLoop,
            logger: logger
        )
        let running: NIOLoopBound<Running>
        do {
            running = try await startup.start()
            started.succeed()
        } catch {
            started.fail(error)
            throw error
        }
        let loop = eventLoop
        let hang = Task { [options, logger] in
            await Self.hangOnRequest(loop: loop, environment: options.environment, logger: logger)
        }
        defer { hang.cancel() }
        // Serve (and reload on SIGHUP) until graceful shutdown cancels the loop.
        await Reloader(
            options: options,
            running: running,
            eventLoop: eventLoop,
            logger: logger,
            loadWarnings: configuration.loadWarnings
                + configuration.unverifiedGrants(
                    manifests: ManifestLoader.load(directories: configuration.appsDirectories).manifests
                )
        ).run()
        await stop(running)
    }

    /// `STOPPING=1`, then the connections closed and what the committer has or gathered stored, before the
    /// process ends.
    private func stop(_ running: NIOLoopBound<Running>) async {
        SystemdNotifier().stopping()
        logger.info("stopping", metadata: MessageID.stopping.metadata)
        try? await eventLoop.flatSubmit {
            running.value.manager.beginStopping()
            running.value.provider.shutdown()
            running.value.server.close()
            return running.value.manager.finishCommits()
        }.get()
    }

    /// With `LOCD_DEBUG_HANG_ON_SIGUSR1=1` in the environment, `SIGUSR1` blocks the event loop for good:
    /// the hang the watchdog exists for, so that a test can prove systemd restarts a hung locd. Without
    /// the variable, `SIGUSR1` keeps its default action.
    private static func hangOnRequest(loop: any EventLoop, environment: [String: String], logger: Logger) async {
        guard environment["LOCD_DEBUG_HANG_ON_SIGUSR1"] == "1" else { return }
        for await _ in await UnixSignalsSequence(trapping: .sigusr1) {
            logger.warning("SIGUSR1 with LOCD_DEBUG_HANG_ON_SIGUSR1=1: blocking the event loop on purpose")
            loop.execute {
                while true { sleep(3600) }
            }
        }
    }
}
