import LocationConfiguration
import LocationCore
import LocationProtocol
import LocationStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SystemdSupport
import UnixSignals
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's start-up error: one line for the person, and the exit code that goes with it.
package struct StartupError: Error, CustomStringConvertible {
    package var description: String
    package var code: ExitStatus
}

/// `locd` as a long-running ``Service``: start-up in the order of R4, then serve until told to stop.
///
/// Start-up: read config → open store → discard stale state → re-arm deadlines → listen → `READY=1`.
/// `SIGHUP` reloads config and manifests (M2) between `RELOADING=1` and `READY=1`; graceful shutdown
/// (`SIGTERM`) sends `STOPPING=1`, closes every connection and exits 0.
package final class Daemon: Service {
    private let options: DaemonOptions
    private let logger: Logger
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    package init(options: DaemonOptions, logger: Logger) {
        self.options = options
        self.logger = logger
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
        var configuration = try Self.configuration(options)
        configuration.limits = fitToOpenFileLimit(configuration.limits)
        let manifests = loadManifests(configuration)
        let bootID = (try? LocationStore.currentBootID()) ?? "unknown-boot"
        let store: LocationStore
        let snapshot: CoreSnapshot
        let epoch: UInt32
        do {
            // Commits run off the event loop (R10), so a lock held elsewhere stalls only the replies that wait
            // for it: wait a while before calling the store failed and serving from memory.
            store = try LocationStore(directory: configuration.stateDirectory, bootID: bootID, busyTimeout: 2)
            snapshot = try store.load()
            epoch = try store.nextEpoch()
        } catch {
            throw StartupError(description: "cannot open the store: \(error)", code: .cannotCreate)
        }
        if let damaged = store.damaged { logger.error("\(damaged)") }
        let clock = DaemonClock()
        let startedAt = clock.now()
        let core = LocationCore(
            configuration: configuration.core,
            manifests: manifests,
            restoring: snapshot,
            epoch: epoch,
            at: startedAt
        )
        let facts = DaemonFacts(
            version: options.version,
            pid: getpid(),
            startedAt: startedAt
        )
        let socketPath = configuration.socketPath(uid: getuid(), environment: options.environment)
        let limits = VarlinkLimits(
            maximumConnections: configuration.limits.maxConnections,
            maximumConnectionsPerUID: configuration.limits.maxConnectionsPerUID,
            adminReserve: configuration.limits.adminReserve,
            idleTimeout: .nanoseconds(configuration.limits.idleTimeout.nanoseconds),
            maximumMessageBytes: configuration.limits.maxMessageBytes,
            maximumWriteBuffer: configuration.limits.maxWriteBuffer,
            maximumQueuedReplies: configuration.limits.maxQueuedUpdates,
            maximumPipelinedCalls: configuration.limits.maxPipelinedCalls
        )
        let loop = group.next()
        let logger = self.logger
        let version = options.version
        let adopted = Systemd.listenedSockets().first?.descriptor
        let notifier = SystemdNotifier()

        let running = try await loop.submit {
            let provider = ProviderSupervisor(configuration: configuration.provider, eventLoop: loop, logger: logger)
            let manager = SessionManager(
                core: core,
                manifests: manifests,
                adminGroup: configuration.adminGroup,
                store: StoreAdapter(store),
                limits: CommitLimits(
                    maxPendingWrites: configuration.limits.maxPendingWrites,
                    maxHeldMessages: configuration.limits.maxHeldMessages
                ),
                facts: facts,
                provider: provider,
                eventLoop: loop,
                logger: logger
            )
            provider.attach { [weak manager] event in manager?.run(event) }
            let server = VarlinkServer(
                info: VarlinkServiceInfo(
                    vendor: "locd",
                    product: "locd",
                    version: version,
                    url: "https://github.com/locd/locd"
                ),
                interfaces: LocationInterfaces.all,
                limits: limits,
                limitExceededError: "io.locd.App.LimitExceeded",
                eventLoop: loop,
                delegate: manager,
                logger: { logger.warning("\($0)") }
            )
            server.isPrivileged = { [unowned manager] peer in manager.mayAdminister(peer) }
            return NIOLoopBound(Running(manager: manager, server: server, provider: provider), eventLoop: loop)
        }.get()

        do {
            if let adopted {
                try await loop.flatSubmit { running.value.server.adopt(descriptor: adopted) }.get()
                logger.info("serving on the socket systemd passed (fd \(adopted))")
            } else {
                try makeParentDirectory(of: socketPath)
                try await loop.flatSubmit { running.value.server.bind(path: socketPath) }.get()
                logger.info("serving on \(socketPath)")
            }
        } catch {
            throw StartupError(description: "cannot listen on \(socketPath): \(error)", code: .cannotCreate)
        }
        let counts = snapshot.sessions.count
        notifier.ready(status: "serving \(manifests.count) apps; \(counts) sessions restored, lingering")
        logger.info("ready", metadata: MessageID.daemonReady.metadata)

        let watchdog = Task { await Self.pingWatchdog(loop: loop) }
        defer { watchdog.cancel() }
        let hang = Task { await Self.hangOnRequest(loop: loop, environment: options.environment, logger: logger) }
        defer { hang.cancel() }
        let signals = await UnixSignalsSequence(trapping: .sighup)
        // Admin.Reload takes the SIGHUP path, once SIGHUP is trapped (before, it would end the process).
        try? await loop.submit { running.value.manager.requestReload = { kill(getpid(), SIGHUP) } }.get()
        // Serve (and reload on SIGHUP) until graceful shutdown cancels the loop.
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                notifier.reloading(status: "reloading configuration and manifests")
                do {
                    let fresh = try Self.configuration(self.options)
                    let reloaded = self.loadManifests(fresh)
                    try await loop.submit {
                        running.value.manager.reload(
                            manifests: reloaded,
                            configuration: fresh.core,
                            adminGroup: fresh.adminGroup
                        )
                        running.value.provider.reconfigure(fresh.provider)
                    }.get()
                    logger.info("reloaded \(reloaded.count) manifests", metadata: MessageID.reloading.metadata)
                    try? await loop.submit { running.value.manager.reloadFinished(refusal: nil) }.get()
                } catch {
                    logger.error("reload refused, nothing changed: \(error)")
                    try? await loop.submit { running.value.manager.reloadFinished(refusal: "\(error)") }.get()
                }
                notifier.ready(status: "serving; reloaded")
            }
        }
        notifier.stopping()
        logger.info("stopping", metadata: MessageID.stopping.metadata)
        try? await loop.flatSubmit {
            running.value.manager.beginStopping()
            running.value.provider.shutdown()
            running.value.server.close()
            // What the committer has or gathered is stored before the process ends.
            return running.value.manager.finishCommits()
        }.get()
        try? await group.shutdownGracefully()
    }

    private func loadManifests(_ configuration: DaemonConfiguration) -> [Manifest] {
        let loaded = ManifestLoader.load(directories: configuration.appsDirectories)
        for issue in loaded.errors { logger.error("manifest rejected: \(issue)") }
        for issue in loaded.warnings { logger.warning("manifest: \(issue)") }
        return loaded.manifests
    }

    /// Lifts the soft limit on open files as far as the limits need (and the hard limit allows), then lowers
    /// `max-connections` and `admin-reserve` to what that limit leaves room for, with a line saying so (F14):
    /// past the limit `accept` fails and no one is served, so the daemon refuses those connections itself.
    private func fitToOpenFileLimit(_ limits: DaemonConfiguration.Limits) -> DaemonConfiguration.Limits {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return limits }
        let wanted = limits.openFilesWanted
        if limit.rlim_cur < rlim_t(wanted) {
            var raised = limit
            raised.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
            if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 { limit = raised }
        }
        let openFiles = limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
        guard let fitted = limits.fitted(toOpenFiles: openFiles) else { return limits }
        logger.warning(
            """
            the open-file limit is \(openFiles) (hard limit \(limit.rlim_max)), too low for max-connections \
            \(limits.maxConnections) and admin-reserve \(limits.adminReserve): lowered max-connections to \
            \(fitted.maxConnections) and admin-reserve to \(fitted.adminReserve), keeping \
            \(DaemonConfiguration.Limits.descriptorReserve) descriptors for everything else; raise LimitNOFILE= \
            (or ulimit -n) to \(wanted) to serve them all
            """
        )
        return fitted
    }

    /// Sends `WATCHDOG=1` at half of `WATCHDOG_USEC` while the service runs, each time only after the event
    /// loop has run a task: a loop that hangs stops the pings, and systemd kills and restarts the service.
    private static func pingWatchdog(loop: any EventLoop) async {
        guard let interval = Systemd.watchdogInterval() else { return }
        let notifier = SystemdNotifier()
        while !Task.isCancelled {
            guard (try? await loop.submit({}).get()) != nil else { return }
            notifier.watchdogPing()
            try? await Task.sleep(for: interval / 2)
        }
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

    private func makeParentDirectory(of path: String) throws {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var prefix = path.hasPrefix("/") ? "" : "."
        while !components.isEmpty {
            let part = components.removeFirst()
            guard !part.isEmpty else { continue }
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw StartupError(
                    description: "cannot create \(prefix): \(String(cString: strerror(errno)))",
                    code: .cannotCreate
                )
            }
        }
    }
}

/// `RLIMIT_NOFILE` as `getrlimit` takes it (Glibc imports it as an enum case).
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

/// The loop-bound parts the daemon runs.
final class Running {
    let manager: SessionManager
    let server: VarlinkServer
    let provider: ProviderSupervisor

    init(manager: SessionManager, server: VarlinkServer, provider: ProviderSupervisor) {
        self.manager = manager
        self.server = server
        self.provider = provider
    }
}

/// The SQLite store as the session manager's ``StateStore``.
final class StoreAdapter: StateStore, Sendable {
    private let store: LocationStore

    init(_ store: LocationStore) {
        self.store = store
    }

    func apply(_ writes: [Persist]) throws {
        try store.apply(writes)
    }
}
