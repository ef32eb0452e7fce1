import Foundation
import JSON
import LocationCore
import LocationTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LocationNetworkProvider
@testable import LocationProviders

/// The network provider against a fake `locd-network` (the project's own Varlink server on a temporary socket):
/// Watch and its settings, positions and losses, the service going away and coming back, refused settings, stop.
@Suite("network provider")
struct NetworkLocationProviderTests {
    /// What the provider reported, from its loop's thread.
    final class Updates: Sendable {
        private let list = Mutex<[ProviderUpdate]>([])
        func append(_ update: ProviderUpdate) { list.withLock { $0.append(update) } }
        var all: [ProviderUpdate] { list.withLock { $0 } }
        var fixes: [Fix] { all.compactMap { if case .fix(let fix) = $0 { fix } else { nil } } }
        var losses: [String] { all.compactMap { if case .fixLost(let reason) = $0 { reason } else { nil } } }
        var states: [ProviderState] { all.compactMap { if case .state(let state, _) = $0 { state } else { nil } } }
        var details: [String] { all.compactMap { if case .state(_, let detail) = $0 { detail } else { nil } } }
        var warnings: [String] { all.compactMap { if case .warning(let text) = $0 { text } else { nil } } }
    }

    /// A provider on its own event loop, and the calls that must run there.
    final class Harness: Sendable {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let provider: NIOLoopBound<NetworkLocationProvider>
        let updates = Updates()

        init(path: String, settings: NetworkLocationSettings = Harness.settings) async throws {
            let loop = self.loop
            provider = try await loop.submit {
                NIOLoopBound(
                    NetworkLocationProvider(
                        socketPath: path,
                        settings: settings,
                        eventLoop: loop,
                        backoff: ReconnectBackoff(initial: 0.02, maximum: 0.08)
                    ),
                    eventLoop: loop
                )
            }.get()
        }

        static let settings = NetworkLocationSettings(
            url: "https://api.beacondb.net/v1/geolocate",
            considerIP: false,
            interval: 120,
            minimumInterval: 15,
            accessPoints: .networkManager
        )

        func start() async throws {
            let (provider, updates) = (provider, updates)
            try await loop.submit { provider.value.start { updates.append($0) } }.get()
        }

        func stop() async throws {
            let provider = provider
            try await loop.submit { provider.value.stop() }.get()
        }

        var state: ProviderState {
            get async {
                let provider = provider
                return (try? await loop.submit { provider.value.state }.get()) ?? .stopped
            }
        }
    }

    static func socketPath() -> String {
        "/tmp/locd-network-test-\(UUID().uuidString.prefix(8)).sock"
    }

    /// A fake locd-network and a started provider watching it: returns once the provider's `Watch` is open.
    static func watching() async throws -> (service: FakeNetworkLocation, harness: Harness) {
        let path = socketPath()
        let service = FakeNetworkLocation(path: path)
        try await service.start()
        let harness = try await Harness(path: path)
        try await harness.start()
        try #require(try await eventually { service.openWatches == 1 }, "timed out waiting for Watch")
        return (service, harness)
    }

    @Test("U13: the provider calls Watch with the table's settings; started runs it, a position is a fix, lost a loss")
    func watchPositionsAndLosses() async throws {
        let (service, harness) = try await Self.watching()
        #expect(
            service.receivedSettings == [
                [
                    "url": .string("https://api.beacondb.net/v1/geolocate"), "considerIp": .bool(false),
                    "interval": .double(120), "minimumInterval": .double(15), "accessPoints": .string("networkManager"),
                ]
            ]
        )
        try #require(try await eventually { harness.updates.states.last == .running }, "timed out waiting for running")
        #expect(harness.updates.details.last == "watching locd-network at \(service.path)")

        try await service.send(latitude: 52.5163, longitude: 13.3777, accuracy: 35, timestamp: 1_763_778_185)
        try #require(try await eventually { harness.updates.fixes.count == 1 }, "timed out waiting for a fix")
        #expect(
            harness.updates.fixes[0]
                == Fix(latitude: 52.5163, longitude: 13.3777, horizontalAccuracy: 35, timestamp: 1_763_778_185)
        )
        try await service.sendLost("no access point in view")
        try #require(try await eventually { harness.updates.losses.count == 1 }, "timed out waiting for a loss")
        #expect(harness.updates.losses == ["locd-network has no position: no access point in view"])
        try await service.send(latitude: 200, longitude: 0, accuracy: 10)
        try #require(try await eventually { harness.updates.warnings.count == 1 }, "timed out waiting for a warning")
        #expect(harness.updates.fixes.count == 1, "a position off the Earth is no fix")
        try await harness.stop()
        try await service.stop()
    }

    @Test("U15: locd-network going away loses the fix and retries; when it is back the provider watches again")
    func serviceGoesAndComesBack() async throws {
        let (service, harness) = try await Self.watching()
        try await service.send(latitude: 52.5, longitude: 13.4, accuracy: 30)
        try #require(try await eventually { harness.updates.fixes.count == 1 }, "timed out waiting for a fix")

        try await service.stop()
        try #require(try await eventually { harness.updates.losses.count == 1 }, "timed out waiting for the loss")
        #expect(harness.updates.losses[0] == "locd-network at \(service.path) closed the connection")
        // The socket file stays with nothing listening: connecting is refused, again and again.
        try #require(
            try await eventually { harness.updates.details.filter { $0.hasPrefix("cannot connect") }.count >= 2 },
            "timed out waiting for refused connections"
        )
        #expect(await harness.state != .running)
        #expect(harness.updates.losses.count == 1, "a fix is lost once")

        try await service.start()
        try #require(try await eventually { service.openWatches == 1 }, "timed out waiting for Watch again")
        try #require(try await eventually { harness.updates.states.last == .running }, "timed out waiting for running")
        try await service.send(latitude: 52.6, longitude: 13.5, accuracy: 25)
        try #require(try await eventually { harness.updates.fixes.count == 2 }, "timed out waiting for the next fix")
        #expect(harness.updates.fixes[1].latitude == 52.6)
        try await harness.stop()
        try await service.stop()
    }

    @Test("U13: with no socket at all the provider retries with backoff and reports why")
    func noSocket() async throws {
        let path = Self.socketPath()
        let harness = try await Harness(path: path)
        try await harness.start()
        try #require(
            try await eventually { harness.updates.states.filter { $0 == .retrying }.count >= 3 },
            "timed out waiting for three attempts"
        )
        let retries = harness.updates.details.filter { $0.hasPrefix("cannot connect to locd-network at \(path)") }
        #expect(
            retries.prefix(3).map { $0.components(separatedBy: "; ").last } == [
                "retrying in 0.02 s", "retrying in 0.04 s", "retrying in 0.08 s",
            ]
        )
        #expect(harness.updates.losses.isEmpty, "no fix was had, so none is lost")
        try await harness.stop()
    }

    @Test("U13: InvalidSettings fails the provider with the field and reason, and it does not retry")
    func invalidSettings() async throws {
        let path = Self.socketPath()
        let service = FakeNetworkLocation(path: path)
        service.refuseWith(field: "url", reason: "not an https URL")
        try await service.start()
        let harness = try await Harness(path: path)
        try await harness.start()
        try #require(try await eventually { harness.updates.states.last == .failed }, "timed out waiting for failed")
        #expect(
            harness.updates.details.last
                == "locd-network refused the settings: url: not an https URL; change the [[provider]] table and reload"
        )
        // A provider that meant to try again would be retrying, not failed, and would have said so.
        try #require(try await eventually { service.closedConnections == 1 }, "timed out waiting for the close")
        #expect(!harness.updates.states.contains(.retrying))
        #expect(service.receivedSettings.count == 1)
        #expect(await harness.state == .failed)
        try await harness.stop()
        try await service.stop()
    }

    @Test("U3: stopping closes the connection, so locd-network's Watch ends, and nothing more is reported")
    func stopClosesWatch() async throws {
        let (service, harness) = try await Self.watching()
        try await harness.stop()
        let count = harness.updates.all.count
        try #require(try await eventually { service.openWatches == 0 }, "timed out waiting for the Watch to close")
        #expect(service.closedConnections == 1)
        try await service.send(latitude: 1, longitude: 2, accuracy: 3)
        #expect(harness.updates.all.count == count)
        #expect(await harness.state == .stopped)
        try await service.stop()
    }
}
