import LocationConfiguration
import Logging
import NIOCore
import ServiceLifecycle
import SystemdSupport
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// The daemon while it serves: `SIGHUP` (and `Admin.Reload`, which takes the same path) reloads the
/// configuration and the manifests between `RELOADING=1` and `READY=1` (M2); one that does not load changes
/// nothing. Serves until graceful shutdown.
struct Reloader {
    let options: DaemonOptions
    let running: NIOLoopBound<Running>
    let eventLoop: any EventLoop
    let logger: Logger
    /// What the configuration could not take, as logged at start (G33, H9), and the grants that grant nothing (G32).
    let loadWarnings: [String]

    /// Serves, and reloads at each `SIGHUP`, until graceful shutdown.
    func run() async {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        // Admin.Reload takes the SIGHUP path, once SIGHUP is trapped (before, it would end the process).
        try? await eventLoop.submit { running.value.manager.requestReload = { kill(getpid(), SIGHUP) } }.get()
        await cancelWhenGracefulShutdown {
            var logged = Set(loadWarnings)
            for await _ in signals { await reload(logged: &logged) }
        }
    }

    /// - Parameter logged: the lines of ``DaemonConfiguration/loadWarnings`` logged: only the lines of a new
    ///   configuration that are not among them are logged (G33, H9).
    private func reload(logged: inout Set<String>) async {
        let notifier = SystemdNotifier()
        notifier.reloading(status: "reloading configuration and manifests")
        do {
            let fresh = try Daemon.configuration(options)
            for line in fresh.loadWarnings where !logged.contains(line) { logger.warning("\(line)") }
            // H9: the accounts inside subordinate ranges, at every load.
            for line in fresh.subordinateIDsOverlaps { logger.warning("\(line)") }
            let reloaded = DaemonStartup.manifests(of: fresh, logger: logger)
            // G32: a grant that grants nothing is said again only when it was not before this reload.
            let grants = fresh.unverifiedGrants(manifests: reloaded)
            for line in grants where !logged.contains(line) { logger.warning("\(line)") }
            logged = Set(fresh.loadWarnings + grants)
            try await eventLoop.submit {
                running.value.manager.reload(
                    manifests: reloaded,
                    configuration: fresh.core,
                    subordinateIDs: fresh.subordinateIDs,
                    adminGroup: fresh.adminGroup,
                    brokers: fresh.brokers
                )
                running.value.provider.reconfigure(fresh.providers)
            }.get()
            logger.info("reloaded \(reloaded.count) manifests", metadata: MessageID.reloading.metadata)
            try? await eventLoop.submit { running.value.manager.reloadFinished(refusal: nil) }.get()
        } catch {
            logger.error("reload refused, nothing changed: \(error)")
            try? await eventLoop.submit { running.value.manager.reloadFinished(refusal: "\(error)") }.get()
        }
        notifier.ready(status: "serving; reloaded")
    }
}
