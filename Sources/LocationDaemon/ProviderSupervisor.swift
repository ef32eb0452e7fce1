import JSON
import LocationConfiguration
import LocationCore
import LocationProviders
import Logging
import NIOCore
import Varlink

/// Runs the configured location provider while the core says it is needed (U3), feeds its fixes and
/// losses of fix into the core as events, logs its state changes, and describes it for `Admin.Status`.
///
/// Loop-bound: every method runs on the daemon's one event loop, the loop the provider is bound to.
final class ProviderSupervisor {
    private(set) var configuration: DaemonConfiguration.Provider
    private var provider: LocationProvider
    private let eventLoop: EventLoop
    private let logger: Logger
    /// Hands an event to the core, the way calls reach it; set once the session manager exists.
    private var deliver: ((Event) -> Void)?
    /// Whether the core wants the provider running.
    private var wanted = false
    /// Whether the provider's last report was a fix, to log only the changes.
    private var reportsFix = false
    /// Why the provider is retrying or failed, for status; cleared when it runs.
    private var problem: String?
    /// Attempts that failed since the provider last ran: the 1st, 2nd, 4th, 8th, … are warned about, the
    /// others logged at debug level, so a gpsd that is down does not flood the journal.
    private var failures = 0
    /// Counts starts and stops: an update of a provider stopped since is dropped.
    private var generation = 0

    /// - Parameter configuration: the `[provider]` table.
    init(configuration: DaemonConfiguration.Provider, eventLoop: EventLoop, logger: Logger) {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.logger = logger
        self.provider = Self.makeProvider(configuration, eventLoop: eventLoop)
    }

    /// The provider a `[provider]` table describes; `socket` wins over `host` and `port` for gpsd.
    static func makeProvider(_ configuration: DaemonConfiguration.Provider, eventLoop: EventLoop) -> LocationProvider {
        switch configuration.kind {
        case .fixedPoint:
            return StaticProvider(
                latitude: configuration.latitude,
                longitude: configuration.longitude,
                altitude: configuration.altitude,
                accuracy: configuration.accuracy,
                eventLoop: eventLoop
            )
        case .nmea:
            // Configuration loading refuses kind = "nmea" without a file; an empty path fails at start, loudly.
            return NMEAReplayProvider(
                file: configuration.file ?? "",
                speedFactor: configuration.speedFactor,
                eventLoop: eventLoop
            )
        case .gpsd:
            let endpoint =
                configuration.socket.map { GPSDEndpoint.unix(path: $0) }
                ?? .tcp(host: configuration.host, port: configuration.port)
            return GPSDProvider(endpoint: endpoint, eventLoop: eventLoop)
        }
    }

    /// Where the provider's events go: the session manager's way into the core.
    func attach(_ deliver: @escaping (Event) -> Void) {
        self.deliver = deliver
    }

    /// Carries out the core's `provider(running:)` action.
    func setRunning(_ running: Bool) {
        guard running != wanted else { return }
        wanted = running
        if running {
            start()
        } else {
            stop(reason: "no session or stream needs location")
        }
    }

    /// Puts a reloaded `[provider]` table into effect: a changed table replaces the provider, restarting it
    /// if it was running; an unchanged one changes nothing.
    func reconfigure(_ configuration: DaemonConfiguration.Provider) {
        guard configuration != self.configuration else { return }
        let wasRunning = wanted
        if wasRunning { stop(reason: "the [provider] configuration changed") }
        self.configuration = configuration
        provider = Self.makeProvider(configuration, eventLoop: eventLoop)
        logger.notice("provider is now \(provider.kind) (\(provider.source))", metadata: metadata)
        if wasRunning { start() }
    }

    /// Stops the provider for good: the daemon is stopping.
    func shutdown() {
        wanted = false
        generation += 1
        provider.stop()
    }

    private func start() {
        generation += 1
        let current = generation
        problem = nil
        failures = 0
        logger.info("provider \(provider.kind) starting (\(provider.source))", metadata: metadata)
        provider.start { [weak self] update in
            guard let self, generation == current else { return }
            handle(update)
        }
    }

    private func stop(reason: String) {
        generation += 1
        provider.stop()
        problem = nil
        logger.info("provider \(provider.kind) stopped: \(reason)", metadata: metadata)
        reportsFix = false
        // A stopped provider has no fix; the next start must not inherit the old one. On the next turn of
        // the loop: the caller is still carrying out the core's actions.
        let current = generation
        eventLoop.assumeIsolated().execute { [self] in
            guard generation == current else { return }
            deliver?(.fixLost)
        }
    }

    private func handle(_ update: ProviderUpdate) {
        switch update {
        case .fix(let fix):
            if !reportsFix {
                reportsFix = true
                logger.info("provider \(provider.kind) has a fix", metadata: metadata)
            }
            deliver?(.fix(fix))
        case .fixLost(let reason):
            if reportsFix {
                reportsFix = false
                logger.notice("provider \(provider.kind) lost its fix: \(reason)", metadata: metadata)
            }
            deliver?(.fixLost)
        case .state(let state, let detail):
            switch state {
            case .failed:
                problem = detail
                logger.error("provider \(provider.kind) failed: \(detail ?? "")", metadata: metadata)
            case .retrying:
                problem = detail
                failures += 1
                let level: Logger.Level = failures & (failures - 1) == 0 ? .warning : .debug
                logger.log(level: level, "provider \(provider.kind) retrying: \(detail ?? "")", metadata: metadata)
            case .running:
                problem = nil
                failures = 0
                logger.info("provider \(provider.kind) running: \(detail ?? "")", metadata: metadata)
            case .connecting, .stopped:
                logger.debug("provider \(provider.kind) \(state.rawValue): \(detail ?? "")", metadata: metadata)
            }
        case .warning(let text):
            logger.warning("provider \(provider.kind): \(text)", metadata: metadata)
        }
    }

    private var metadata: Logger.Metadata {
        ["locd.provider": .string(provider.kind)]
    }

    // MARK: Status

    /// `Admin.Status`'s `ProviderStatus`, in IDL order: the core's view (demand, fix) and the provider's own.
    /// - Parameters:
    ///   - running: whether the core wants the provider running (U3).
    ///   - hasFix: whether the provider's last report was a fix, as the core holds it (D9).
    ///   - lastFix: the newest fix the core has, kept after it was lost so status can say when it was.
    func status(running: Bool, hasFix: Bool, lastFix: Fix?) -> JSONValue {
        var object: JSONObject = [
            "name": .string(provider.kind),
            "running": .bool(running),
            "hasFix": .bool(hasFix),
        ]
        if let lastFix { object["lastFix"] = .double(lastFix.timestamp) }
        object["state"] = .string(provider.state.rawValue)
        object["source"] = .string(provider.source)
        if let lastFix {
            object["lastLatitude"] = .double(lastFix.latitude)
            object["lastLongitude"] = .double(lastFix.longitude)
        }
        if let problem, provider.state == .retrying || provider.state == .failed {
            object["lastError"] = .string(problem)
        }
        return .object(object)
    }
}
