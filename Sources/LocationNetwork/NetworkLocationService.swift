import LocationProtocol
import Logging
import NIOCore
import Varlink

/// `io.locd.NetworkLocation` (PROTOCOL.md): each Watch checked and joined to the schedule of its settings, at most
/// ``maximumWatches`` open at once. Loop-bound: the server calls it on its event loop only.
public final class NetworkLocationService: VarlinkServerDelegate {
    /// The most Watches open at once: locd opens one per network provider it has.
    public static let maximumWatches = 8

    private let loop: any EventLoop
    private let client: GeolocateClient
    private let logger: Logger
    private var groups: [NetworkSettings: WatchGroup] = [:]
    private let refusedKeys = RefusedKeys()
    /// The settings of each connection's open Watch, by connection id.
    private var watching: [UInt64: NetworkSettings] = [:]

    public init(loop: any EventLoop, client: GeolocateClient, logger: Logger) {
        self.loop = loop
        self.client = client
        self.logger = logger
    }

    public func opened(_ connection: VarlinkConnection) {}

    public func received(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        guard call.method == NetworkLocationMethod.watch.name else {
            return connection.fail(serial, .methodNotFound(call.method))
        }
        guard call.more else { return connection.fail(serial, .expectedMore) }
        let settings: NetworkSettings
        switch NetworkSettings.parse(call.parameters["settings"]) {
        case .success(let parsed): settings = parsed
        case .failure(let invalid):
            logger.notice("refusing a Watch: \(invalid.field) \(invalid.reason)")
            let error = WireError.invalidSettings(field: invalid.field, reason: invalid.reason)
            return connection.fail(
                serial,
                VarlinkError(name: error.name.name, parameters: error.parameters(message: nil))
            )
        }
        guard watching.count < Self.maximumWatches else {
            logger.warning("refusing a Watch: \(watching.count) are open, the most locd-network serves")
            let message =
                "\(Self.maximumWatches) Watches are open, the most locd-network serves: close one you do not use"
            let error = WireError.networkLimitExceeded(limit: "watches", maximum: Self.maximumWatches)
            return connection.fail(
                serial,
                VarlinkError(name: error.name.name, parameters: error.parameters(message: message))
            )
        }
        connection.reply(serial, WatchEvent.started, continues: true)
        watching[connection.id] = settings
        let group =
            groups[settings]
            ?? WatchGroup(settings: settings, loop: loop, client: client, refusedKeys: refusedKeys, logger: logger)
        groups[settings] = group
        group.add(connection, serial: serial)
    }

    public func closed(_ connection: VarlinkConnection) {
        guard let settings = watching.removeValue(forKey: connection.id), let group = groups[settings] else { return }
        group.remove(connection.id)
        if group.isEmpty { groups.removeValue(forKey: settings) }
    }
}
