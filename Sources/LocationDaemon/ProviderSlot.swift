import JSON
import LocationConfiguration
import LocationCore
import LocationNetworkProvider
import LocationProtocol
import LocationProviders
import Logging
import NIOCore

/// One configured provider as the supervisor runs it (U13): the provider, its name in status and logs, and
/// what it said last, so that its state changes are logged once each and `Admin.Status` can describe it.
///
/// Loop-bound, like the supervisor that owns it.
final class ProviderSlot {
    let configuration: DaemonConfiguration.Provider
    let provider: LocationProvider
    /// The kind, numbered when the configuration lists the kind more than once (`gpsd`, `gpsd#2`).
    let name: String
    private let logger: Logger
    /// Whether the provider's last report was a fix, to log only the changes.
    private(set) var reportsFix = false
    /// The provider's newest fix, kept after it is lost so status can say when and where it was.
    private(set) var lastFix: Fix?
    /// Why the provider is retrying or failed, for status; cleared when it runs.
    private var problem: String?
    /// Attempts that failed since the provider last ran: the 1st, 2nd, 4th, 8th, … are warned about, the
    /// others logged at debug level, so a gpsd that is down does not flood the journal.
    private var failures = 0

    init(configuration: DaemonConfiguration.Provider, name: String, eventLoop: EventLoop, logger: Logger) {
        self.configuration = configuration
        self.name = name
        self.logger = logger
        self.provider = Self.makeProvider(configuration, eventLoop: eventLoop)
    }

    /// The provider a provider table describes; `socket` wins over `host` and `port` for gpsd.
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
        case .network:
            return NetworkLocationProvider(
                socketPath: configuration.networkSocket,
                settings: NetworkLocationSettings(
                    url: configuration.url,
                    considerIP: configuration.considerIP,
                    interval: configuration.interval,
                    minimumInterval: configuration.minimumInterval,
                    accessPoints: configuration.accessPoints.wire
                ),
                eventLoop: eventLoop
            )
        }
    }

    /// The names of `configurations` in status and logs: each kind, numbered from its second time on.
    static func names(_ configurations: [DaemonConfiguration.Provider]) -> [String] {
        var seen: [DaemonConfiguration.Provider.Kind: Int] = [:]
        return configurations.map { configuration in
            let count = seen[configuration.kind, default: 0] + 1
            seen[configuration.kind] = count
            return count == 1 ? configuration.kind.rawValue : "\(configuration.kind.rawValue)#\(count)"
        }
    }

    func start(_ handler: @escaping (ProviderUpdate) -> Void) {
        problem = nil
        failures = 0
        logger.info("provider \(name) starting (\(provider.source))", metadata: metadata)
        provider.start(handler)
    }

    func stop(reason: String) {
        provider.stop()
        problem = nil
        reportsFix = false
        logger.info("provider \(name) stopped: \(reason)", metadata: metadata)
    }

    /// Logs an update and keeps what status shows of it.
    func note(_ update: ProviderUpdate) {
        switch update {
        case .fix(let fix):
            lastFix = fix
            if !reportsFix {
                reportsFix = true
                logger.info("provider \(name) has a fix", metadata: metadata)
            }
        case .fixLost(let reason):
            if reportsFix {
                reportsFix = false
                logger.notice("provider \(name) lost its fix: \(reason)", metadata: metadata)
            }
        case .state(let state, let detail):
            noteState(state, detail: detail)
        case .warning(let text):
            logger.warning("provider \(name): \(text)", metadata: metadata)
        }
    }

    private func noteState(_ state: ProviderState, detail: String?) {
        switch state {
        case .failed:
            problem = detail
            logger.error("provider \(name) failed: \(detail ?? "")", metadata: metadata)
        case .retrying:
            problem = detail
            failures += 1
            let level: Logger.Level = failures & (failures - 1) == 0 ? .warning : .debug
            logger.log(level: level, "provider \(name) retrying: \(detail ?? "")", metadata: metadata)
        case .running:
            problem = nil
            failures = 0
            logger.info("provider \(name) running: \(detail ?? "")", metadata: metadata)
        case .connecting, .stopped:
            logger.debug("provider \(name) \(state.rawValue): \(detail ?? "")", metadata: metadata)
        }
    }

    var metadata: Logger.Metadata {
        ["locd.provider": .string(name)]
    }

    /// `Admin.Status`'s `ProviderStatus`, in IDL order.
    /// - Parameters:
    ///   - running: whether the core wants providers running (U3).
    ///   - hasFix: whether the fix shown counts now: the core's for `provider`, the provider's fresh fix in
    ///     `providers` (U16).
    ///   - lastFix: the fix shown: the core's newest for `provider`, the provider's own newest in `providers`.
    func status(running: Bool, hasFix: Bool, lastFix: Fix?) -> WireProviderStatus {
        WireProviderStatus(
            name: name,
            running: running,
            hasFix: hasFix,
            lastFix: lastFix?.timestamp,
            state: provider.state.rawValue,
            source: provider.source,
            lastLatitude: lastFix?.latitude,
            lastLongitude: lastFix?.longitude,
            lastError: provider.state == .retrying || provider.state == .failed ? problem : nil,
            kind: configuration.kind.rawValue,
            lastAccuracy: lastFix?.horizontalAccuracy
        )
    }
}

extension DaemonConfiguration.Provider.AccessPoints {
    /// The IDL's spelling of the choice.
    var wire: NetworkLocationSettings.AccessPoints {
        switch self {
        case .auto: .auto
        case .wpaSupplicant: .wpaSupplicant
        case .networkManager: .networkManager
        }
    }
}
