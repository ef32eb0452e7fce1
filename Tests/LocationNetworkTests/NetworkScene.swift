import Foundation
import LocationTestSupport

/// The scene of one integration test: a private bus, optionally a stand-in Wi-Fi service on it, a stand-in
/// geolocation service, and the real locd-network between them.
final class NetworkScene: @unchecked Sendable {
    // @unchecked: set once in init; used by one test.
    let directory: TemporaryDirectory
    let bus: PrivateSystemBus
    let wifi: StandInWifi?
    let service: StandInGeolocate
    let daemon: NetworkLocationProcess

    init(
        wifi kind: StandInWifi.Kind? = .wpaSupplicant,
        points: [StandInWifi.Point] = StandInWifi.threeWithNomap,
        selfSigned: Bool = false,
        idleTimeout: Double = 120,
        requestTimeout: Double = 2,
        options: (StandInGeolocate) throws -> (arguments: [String], environment: [String: String]) = { _ in ([], [:]) }
    ) throws {
        let directory = try TemporaryDirectory(prefix: "locd-network")
        let bus = try PrivateSystemBus(directory: directory.path)
        self.directory = directory
        self.bus = bus
        wifi = try kind.map { try StandInWifi($0, points: points, bus: bus, directory: directory.path) }
        service = try StandInGeolocate(directory: directory.path, selfSigned: selfSigned)
        let (arguments, environment) = try options(service)
        daemon = try NetworkLocationProcess(
            directory: directory.path,
            bus: bus,
            requestTimeout: requestTimeout,
            idleTimeout: idleTimeout,
            arguments: arguments,
            environment: environment
        )
    }

    /// Starts the scene on a thread of its own (``offPool(_:)``).
    static func start(
        wifi kind: StandInWifi.Kind? = .wpaSupplicant,
        points: [StandInWifi.Point] = StandInWifi.threeWithNomap,
        selfSigned: Bool = false,
        idleTimeout: Double = 120,
        requestTimeout: Double = 2,
        options: @escaping @Sendable (StandInGeolocate) throws -> (arguments: [String], environment: [String: String]) =
            { _ in ([], [:]) }
    ) async throws -> NetworkScene {
        try await offPool {
            try NetworkScene(
                wifi: kind,
                points: points,
                selfSigned: selfSigned,
                idleTimeout: idleTimeout,
                requestTimeout: requestTimeout,
                options: options
            )
        }
    }

    deinit {
        daemon.stop()
        service.stop()
        wifi?.stop()
        bus.stop()
        directory.remove()
    }

    func watch(
        considerIp: Bool = false,
        interval: Double = 300,
        minimumInterval: Double = 1,
        accessPoints: String = "auto",
        url: String? = nil
    ) async throws -> NetworkWatch {
        try await NetworkWatch(
            socket: daemon.socketPath,
            settings: NetworkLocationProcess.settings(
                url: url ?? service.url,
                considerIp: considerIp,
                interval: interval,
                minimumInterval: minimumInterval,
                accessPoints: accessPoints
            )
        )
    }
}

/// Runs `work` on a thread of its own and waits for it: the waits for other processes (a bus, a stand-in, the
/// daemon's READY=1) then hold no thread of the cooperative pool, which the Watches' reading tasks need; on two
/// cores, with other suites blocking too, the pool can otherwise starve for longer than a test waits.
func offPool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
