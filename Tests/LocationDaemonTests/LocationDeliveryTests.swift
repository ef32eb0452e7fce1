import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// Locations end to end: a real provider inside the real daemon, delivered to a client over the socket (U1),
/// reduced to a grid cell for an approximate grant (U2), and evaluated against a monitored circle (U4).
@Suite("Location delivery", .serialized)
struct LocationDeliveryTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// Tokyo Station, the static provider's default point.
    static let station = (latitude: 35.681236, longitude: 139.767125)

    private func daemon(provider: String) throws -> DaemonProcess {
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + "\n[provider]\n" + provider + "\n")
        try daemon.start()
        return daemon
    }

    /// `com.ex.maps` authorized as given, in the foreground with a `whenInUse` session, streaming live updates;
    /// returns the first update that carries a location.
    private func firstLocation(_ daemon: DaemonProcess, precise: Bool) throws -> (JSONValue, VarlinkClient) {
        let admin = try daemon.connect()
        try admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("whileUsing"), "precise": .bool(precise)]
        )
        let app = try daemon.app("com.ex.maps", state: "foreground")
        try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let stream = try daemon.app("com.ex.maps", state: "foreground")
        var update = try stream.stream("io.locd.App.LiveUpdates")["update"] ?? .null
        while update["location"] == nil || update["location"] == .null {
            update = try stream.next()["update"] ?? .null
        }
        return (update, stream)
    }

    @Test("U1: a live update carries the provider's fix, with no limiting flag")
    func fullAccuracy() throws {
        let daemon = try daemon(provider: "kind = \"static\"\naltitude = 40.0\naccuracy = 5.0")
        let (update, _) = try firstLocation(daemon, precise: true)
        let location = try #require(update["location"])
        #expect(location["latitude"]?.doubleValue == Self.station.latitude)
        #expect(location["longitude"]?.doubleValue == Self.station.longitude)
        #expect(location["altitude"]?.doubleValue == 40.0)
        #expect(location["horizontalAccuracy"]?.doubleValue == 5.0)
        let timestamp = try #require(location["timestamp"]?.doubleValue)
        #expect(abs(timestamp - Date().timeIntervalSince1970) < 60)
        #expect(update["diagnostic"]?["flags"] == .array([]))
        #expect(daemon.stop() == 0)
    }

    @Test("U2: an approximate grant gets the centre of the fix's grid cell, 5000 m, and no altitude")
    func reducedAccuracy() throws {
        let daemon = try daemon(provider: "kind = \"static\"\naltitude = 40.0\naccuracy = 5.0")
        let (update, _) = try firstLocation(daemon, precise: false)
        let location = try #require(update["location"])
        // Band floor(35.681236 / 0.09) = 396, centre 35.685; ⌈4000·cos 35.685°⌉ = 3249 columns of 360/3249°;
        // column floor((139.767125 + 180) / (360/3249)) = 2885, centre (2885.5 · 360/3249) − 180 = 139.72299…
        #expect(abs((location["latitude"]?.doubleValue ?? 0) - 35.685) < 1e-9)
        #expect(abs((location["longitude"]?.doubleValue ?? 0) - 139.7229917) < 1e-6)
        #expect(location["horizontalAccuracy"]?.doubleValue == 5000)
        #expect(location["altitude"] == nil || location["altitude"] == .null)
        #expect(update["diagnostic"]?["flags"] == .array([.string("accuracyLimited")]))
        #expect(daemon.stop() == 0)
    }

    @Test("U4: a monitor reports entering and then leaving a circle along an NMEA route")
    func monitorAlongRoute() throws {
        // The route walks east along latitude 35.681236 from 600 m west of the station to 600 m east, 100 m
        // every 10 s, replayed 30 times as fast; the circle has a 300 m radius round the station.
        let route = Self.fixtures.appendingPathComponent("circle-walk.nmea").path
        let daemon = try daemon(provider: "kind = \"nmea\"\nfile = \"\(route)\"\nspeed-factor = 30")
        try daemon.authorize("com.ex.maps", "always")
        let app = try daemon.app("com.ex.maps", state: "foreground")
        let circle: JSONValue = .object([
            "latitude": .double(Self.station.latitude), "longitude": .double(Self.station.longitude),
            "radius": .double(300),
        ])
        try app.call(
            "io.locd.App.AddCondition",
            ["monitor": .string("trip"), "identifier": .string("station"), "condition": circle]
        )
        let events = try daemon.app("com.ex.maps", state: "foreground")
        _ = try events.stream("io.locd.App.MonitorEvents", ["monitor": .string("trip")])
        func nextState() throws -> String? {
            try events.next { $0["event"]?["identifier"] == .string("station") }["event"]?["state"]?.stringValue
        }
        // Whatever the replay's phase, within two loops of the route the walker enters and then leaves.
        var states: [String] = []
        while states.count < 8, !(states.contains("satisfied") && states.last == "unsatisfied") {
            if let state = try nextState() { states.append(state) }
        }
        let entered = try #require(states.firstIndex(of: "satisfied"), "states: \(states)")
        #expect(states[entered...].contains("unsatisfied"), "states: \(states)")
        // No flapping at the edges: states alternate.
        let changes = states.filter { $0 != "unknown" }
        for (previous, next) in zip(changes, changes.dropFirst()) { #expect(previous != next, "states: \(states)") }
        #expect(daemon.stop() == 0)
    }
}
