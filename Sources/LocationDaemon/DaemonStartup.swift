import LocationConfiguration
import LocationCore
import LocationProtocol
import LocationStore
import Logging
import NIOCore
import SystemdSupport
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's start-up, in the order of R4: the configuration (read once, by the caller) → open the store
/// (which takes the state directory's lock, R6) → discard stale state → re-arm deadlines → the provider and
/// the session manager → listen → `READY=1`.
struct DaemonStartup {
    let configuration: DaemonConfiguration
    let options: DaemonOptions
    let eventLoop: any EventLoop
    let logger: Logger

    /// Starts everything and listens; throws a ``StartupError`` when the store or the socket cannot be had.
    func start() async throws -> NIOLoopBound<Running> {
        var configuration = configuration
        configuration.limits = fitToOpenFileLimit(configuration.limits)
        // G33, H9: what of GeoClue's configuration locd cannot carry, and the subordinate uids' lines skipped.
        for line in configuration.loadWarnings + configuration.subordinateIDsOverlaps { logger.warning("\(line)") }
        let manifests = Self.manifests(of: configuration, logger: logger)
        // G32: a grant whose app has no identity locd verifies grants nothing; say what to write.
        for line in configuration.unverifiedGrants(manifests: manifests) { logger.warning("\(line)") }
        let (store, snapshot, epoch) = try openStore(configuration)
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
        let facts = DaemonFacts(version: options.version, pid: getpid(), startedAt: startedAt)
        let running = try await assemble(configuration, core: core, manifests: manifests, store: store, facts: facts)
        try await listen(running, configuration)
        let counts = snapshot.sessions.count
        SystemdNotifier().ready(status: "serving \(manifests.count) apps; \(counts) sessions restored, lingering")
        logger.info("ready", metadata: MessageID.daemonReady.metadata)
        return running
    }

    /// The manifests of the configuration's directories; a rejected one is logged and left out (M1).
    static func manifests(of configuration: DaemonConfiguration, logger: Logger) -> [Manifest] {
        let loaded = ManifestLoader.load(directories: configuration.appsDirectories)
        for issue in loaded.errors { logger.error("manifest rejected: \(issue)") }
        for issue in loaded.warnings { logger.warning("manifest: \(issue)") }
        return loaded.manifests
    }

    private func openStore(_ configuration: DaemonConfiguration) throws -> (LocationStore, CoreSnapshot, UInt32) {
        let bootID = (try? LocationStore.currentBootID()) ?? "unknown-boot"
        do {
            // Commits run off the event loop (R10), so a lock held elsewhere stalls only the replies that wait
            // for it: wait a while before calling the store failed and serving from memory.
            let store = try LocationStore(directory: configuration.stateDirectory, bootID: bootID, busyTimeout: 2)
            return (store, try store.load(), try store.nextEpoch())
        } catch {
            throw StartupError(description: "cannot open the store: \(error)", code: .cannotCreate)
        }
    }

    /// The provider, the session manager and the Varlink server, made on the event loop they run on.
    private func assemble(
        _ configuration: DaemonConfiguration,
        core: LocationCore,
        manifests: [Manifest],
        store: LocationStore,
        facts: DaemonFacts
    ) async throws -> NIOLoopBound<Running> {
        let loop = eventLoop
        let logger = logger
        let version = options.version
        let limits = Self.varlinkLimits(configuration.limits)
        return try await loop.submit {
            let provider = ProviderSupervisor(
                configurations: configuration.providers,
                eventLoop: loop,
                logger: logger
            )
            let manager = SessionManager(
                core: core,
                manifests: manifests,
                subordinateIDs: configuration.subordinateIDs,
                adminGroup: configuration.adminGroup,
                brokers: configuration.brokers,
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
                limitExceededError: WireErrorName.limitExceeded.name,
                eventLoop: loop,
                delegate: manager,
                logger: { logger.warning("\($0)") }
            )
            server.isPrivileged = { [unowned manager] peer in manager.mayAdminister(peer) }
            server.accountUID = { [unowned manager] uid in manager.countedUID(uid) }
            manager.callsRun = { [unowned server] in server.callsRun }
            return NIOLoopBound(Running(manager: manager, server: server, provider: provider), eventLoop: loop)
        }.get()
    }

    private static func varlinkLimits(_ limits: DaemonConfiguration.Limits) -> VarlinkLimits {
        VarlinkLimits(
            maximumConnections: limits.maxConnections,
            maximumConnectionsPerUID: limits.maxConnectionsPerUID,
            adminReserve: limits.adminReserve,
            idleTimeout: .nanoseconds(limits.idleTimeout.nanoseconds),
            maximumMessageBytes: limits.maxMessageBytes,
            maximumWriteBuffer: limits.maxWriteBuffer,
            maximumQueuedReplies: limits.maxQueuedUpdates,
            maximumPipelinedCalls: limits.maxPipelinedCalls
        )
    }

    /// Whether `descriptor` already has `SO_PASSCRED`: set when systemd made it (`PassCredentials=yes`), so that the
    /// kernel attached credentials to what peers wrote before locd started (I4).
    private static func passesCredentials(_ descriptor: Int32) -> Bool {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, SO_PASSCRED, &value, &length) == 0 && value != 0
    }

    /// Listens on the socket systemd passed, or else binds the configured path.
    private func listen(_ running: NIOLoopBound<Running>, _ configuration: DaemonConfiguration) async throws {
        let socketPath = configuration.socketPath(uid: getuid(), environment: options.environment)
        let adopted = Systemd.listenedSockets().first?.descriptor
        do {
            if let adopted {
                if !Self.passesCredentials(adopted) {
                    // I4: the bytes written to it before locd sets SO_PASSCRED carry no writer; those of a
                    // socket made with it (PassCredentials=yes) carry theirs from the first.
                    logger.warning(
                        """
                        the socket systemd passed was made without SO_PASSCRED: a connection made before locd \
                        started cannot prove who wrote its Hello, so an app identified by its executable, and a \
                        broker, must connect again; add PassCredentials=yes to the .socket unit
                        """
                    )
                }
                try await eventLoop.flatSubmit { running.value.server.adopt(descriptor: adopted) }.get()
                logger.info("serving on the socket systemd passed (fd \(adopted))")
            } else {
                try makeParentDirectory(of: socketPath)
                try await eventLoop.flatSubmit { running.value.server.bind(path: socketPath) }.get()
                logger.info("serving on \(socketPath)")
            }
        } catch let taken as SocketInUse {
            // R14: the other server keeps its socket; this one goes, saying whom to stop or where else to listen.
            throw StartupError(
                description: """
                    cannot listen on \(socketPath): \(taken.listener) listens there already; stop it first, or give \
                    this locd a socket of its own (--socket, or socket in locd.toml)
                    """,
                code: .cannotCreate
            )
        } catch {
            throw StartupError(description: "cannot listen on \(socketPath): \(error)", code: .cannotCreate)
        }
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
