import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// Several providers inside the real daemon (U13–U16): a real gpsd fed by gpsfake beside the network provider,
/// pointed at a fake `locd-network`; the best fresh fix reaches live updates, and status names its provider.
@Suite("Combined providers", .serialized)
struct CombinedProviderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Where the fake locd-network says the machine is: Berlin, to 800 m, far from the GPS route in Tokyo.
    static let network = (latitude: 52.5163, longitude: 13.3777, accuracy: 800.0)

    /// Polls `Admin.Status` until it satisfies `condition`, for at most 20 seconds; returns it.
    private static func waitForStatus(
        _ admin: VarlinkClient,
        _ what: String,
        until condition: (JSONValue) -> Bool
    ) async throws -> JSONValue {
        var last: JSONValue = .null
        let shown = try await eventually(timeout: 20, every: 0.02) {
            last = try admin.call("io.locd.Admin.Status")["status"] ?? .null
            return condition(last)
        }
        if shown { return last }
        throw ProviderWaitFailed(description: "status never showed \(what); last: \(last.serialized)")
    }

    /// A fake locd-network in `directory` that answers each Watch with ``network``.
    private static func networkService(in directory: TemporaryDirectory) async throws -> FakeNetworkLocation {
        let service = FakeNetworkLocation(path: directory.path + "/network.sock")
        service.answerEachWatch(latitude: network.latitude, longitude: network.longitude, accuracy: network.accuracy)
        try await service.start()
        return service
    }

    /// The `index`th of status's `providers`, or null.
    private static func entry(_ status: JSONValue, _ index: Int) -> JSONValue {
        guard let list = status["providers"]?.arrayValue, list.indices.contains(index) else { return .null }
        return list[index]
    }

    private static func latitude(_ reply: JSONObject) -> Double? {
        reply["update"]?["location"]?["latitude"]?.doubleValue
    }

    private static func isGPS(_ reply: JSONObject) -> Bool {
        latitude(reply).map { abs($0 - 35.681236) < 1e-3 } ?? false
    }

    private static func isNetwork(_ reply: JSONObject) -> Bool {
        latitude(reply) == network.latitude
    }

    private static func locctl(_ arguments: [String], socket: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: DaemonProcess.binary).deletingLastPathComponent()
            .appendingPathComponent("locctl")
        process.arguments = arguments
        process.environment = ["LOCD_SOCKET": socket]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        #expect(process.waitForExit().status == 0)
        return String(decoding: data, as: UTF8.self)
    }

    @Test(
        "U15: gpsd's fix wins while it lasts, the network position serves through its loss, the GPS fix wins again",
        .enabled(
            if: GPSFake.isInstalled,
            "gpsfake is not installed: apt-get install --no-install-recommends gpsd gpsd-clients"
        )
    )
    func takeoverAndReturn() async throws {
        let directory = try TemporaryDirectory(prefix: "locd-network")
        defer { directory.remove() }
        let service = try await Self.networkService(in: directory)
        // A sentence every 0.3 s: the route's eight epochs without a fix last 4.8 s, time enough to read status.
        let gpsfake = try GPSFake(route: Self.fixtures.appendingPathComponent("fix-loss.nmea").path, cycle: 0.3)
        defer { gpsfake.stop() }
        let daemon = try DaemonProcess(
            settings: DaemonProcess.fastLifecycle + """

                [[provider]]
                kind = "gpsd"
                host = "127.0.0.1"
                port = \(gpsfake.port)

                [[provider]]
                kind = "network"
                socket = "\(service.path)"
                url = "http://127.0.0.1:9/v1/geolocate"
                interval = 60

                """
        )
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "whileUsing")
        let idle = try await Self.waitForStatus(admin, "two providers") { $0["providers"]?.arrayValue?.count == 2 }
        #expect(Self.entry(idle, 0)["name"] == .string("gpsd") && Self.entry(idle, 1)["name"] == .string("network"))
        #expect(Self.entry(idle, 1)["kind"] == .string("network") && idle["lastFixFrom"] == nil)

        let app = try daemon.app("com.ex.maps")
        _ = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let stream = try daemon.app("com.ex.maps")
        _ = try stream.stream("io.locd.App.LiveUpdates")
        try #require(try await eventually { service.openWatches == 1 }, "the network provider never called Watch")
        #expect(service.receivedSettings.first?["url"] == .string("http://127.0.0.1:9/v1/geolocate"))
        #expect(service.receivedSettings.first?["interval"] == .double(60))

        // GPS: its fix is the more accurate one, so it is what the stream gets.
        let gps = try stream.next { Self.isGPS($0) }
        #expect(gps.flags == [])
        let gpsStatus = try await Self.waitForStatus(admin, "the fix from gpsd") {
            $0["lastFixFrom"] == .string("gpsd")
        }
        #expect(gpsStatus["provider"]?["name"] == .string("gpsd"))
        #expect(Self.entry(gpsStatus, 1)["hasFix"] == .bool(true), "the network position is fresh too")

        // The route's stretch without a fix: the network position takes over at once, with no loss in between.
        var between: [JSONObject] = []
        let network = try stream.next { reply in
            between.append(reply)
            return Self.isNetwork(reply)
        }
        #expect(network.flags == [])
        #expect(network["update"]?["location"]?["horizontalAccuracy"]?.doubleValue == Self.network.accuracy)
        #expect(!between.contains { $0.flags.contains("locationUnavailable") }, "no update without a location")
        let networkStatus = try admin.call("io.locd.Admin.Status")["status"] ?? .null
        #expect(networkStatus["lastFixFrom"] == .string("network"))
        #expect(networkStatus["provider"]?["name"] == .string("network"))
        #expect(Self.entry(networkStatus, 0)["hasFix"] == .bool(false))
        #expect(Self.entry(networkStatus, 1)["hasFix"] == .bool(true))
        let text = try Self.locctl(["status"], socket: daemon.socketPath)
        #expect(text.contains("Provider network: running, fresh fix ±800 m at "))
        #expect(text.contains(", supplied the last fix, from locd-network at \(service.path)"))
        #expect(text.contains("Provider gpsd: running, no fresh fix, last"))
        let json = try Self.locctl(["status", "--json"], socket: daemon.socketPath)
        #expect(JSONValue.parse(Array(json.utf8))?["lastFixFrom"] == .string("network"))

        // The GPS fix again: it wins again.
        let back = try stream.next { Self.isGPS($0) }
        #expect(back.flags == [])
        let backStatus = try await Self.waitForStatus(admin, "gpsd again") { $0["lastFixFrom"] == .string("gpsd") }
        #expect(backStatus["provider"]?["name"] == .string("gpsd"))
        #expect(Self.entry(backStatus, 0)["hasFix"] == .bool(true))
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("location now from provider network"))
        #expect(daemon.errorOutput.contains("location now from provider gpsd"))
        try await service.stop()
    }

    @Test(
        "U28: with no provider written, locd runs gpsd and the network position on their sockets, never a made-up place"
    )
    func builtInProviders() async throws {
        let daemon = try DaemonProcess(builtInProviders: true)
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        _ = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        // Both run while the session needs location, each trying its socket (nothing listens there in a test).
        let status = try await Self.waitForStatus(admin, "both built-in providers running") { status in
            (0..<2).allSatisfy { Self.entry(status, $0)["running"] == .bool(true) }
        }
        #expect(status["providers"]?.arrayValue?.count == 2)
        #expect(Self.entry(status, 0)["kind"] == .string("gpsd") && Self.entry(status, 1)["kind"] == .string("network"))
        #expect(Self.entry(status, 0).serialized.contains("/run/locd/gpsd.sock"), "\(status.serialized)")
        #expect(Self.entry(status, 1).serialized.contains("/run/locd/network.sock"), "\(status.serialized)")
        #expect(Self.entry(status, 1).serialized.contains("api.beacondb.net"), "\(status.serialized)")
        // No fixed point stands in: the demo's Tokyo Station is nowhere.
        #expect(!status.serialized.contains("35.681236"), "\(status.serialized)")
    }

    @Test("U14, U15: a fix that goes stale hands over at its stale-after instant; a reload keeps the list in effect")
    func staleHandsOver() async throws {
        let directory = try TemporaryDirectory(prefix: "locd-network")
        defer { directory.remove() }
        let service = try await Self.networkService(in: directory)
        // The static point reports once when it starts; stale after 1.5 s, it gives way to the network position.
        let daemon = try DaemonProcess(
            settings: DaemonProcess.fastLifecycle + """

                [[provider]]
                kind = "static"
                latitude = -33.8568
                longitude = 151.2153
                accuracy = 5
                stale-after = 1.5

                [[provider]]
                kind = "network"
                socket = "\(service.path)"

                """
        )
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        // Before the point can be delivered: the session starts the providers.
        let started = Date()
        _ = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let stream = try daemon.app("com.ex.maps")
        // The session started the providers, so the stream's first update may carry the point already.
        let first = try stream.stream("io.locd.App.LiveUpdates")
        let point = Self.latitude(first) == -33.8568 ? first : try stream.next { Self.latitude($0) == -33.8568 }
        #expect(point.flags == [])
        let network = try stream.next { Self.isNetwork($0) }
        let waited = Date().timeIntervalSince(started)
        #expect(network.flags == [])
        #expect(waited > 1.4, "the point was fresh for its 1.5 s (\(waited) s)")
        let status = try await Self.waitForStatus(admin, "network") { $0["lastFixFrom"] == .string("network") }
        #expect(Self.entry(status, 0)["hasFix"] == .bool(false) && Self.entry(status, 1)["hasFix"] == .bool(true))
        #expect(Self.entry(status, 0)["state"] == .string("running"), "a stale provider keeps running")

        // A reload with the same list changes nothing; one with the point moved restarts both providers.
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "latitude = -33.8568", with: "latitude = -33.9")
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let moved = try stream.next { Self.latitude($0) == -33.9 }
        #expect(moved.flags == [])
        try #require(try await eventually { service.receivedSettings.count == 2 }, "the network provider restarted")
        #expect(daemon.stop() == 0)
        try await service.stop()
    }
}
