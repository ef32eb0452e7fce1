import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// The network provider end to end, every piece real but the Wi-Fi and the web service: locd's `network` provider
/// reaches the real `locd-network` over its socket, which reads a stand-in wpa_supplicant on a private system bus
/// and asks a stand-in ichnaea service on 127.0.0.1 that checks each request (U6–U11, U13).
@Suite("Network location through locd-network", .serialized)
struct NetworkLocationEndToEndTests {
    /// Where the stand-in service says the machine is, and where it says it is after the access points change.
    static let first = (latitude: 48.8584, longitude: 2.2945, accuracy: 40.0)
    static let second = (latitude: 48.8606, longitude: 2.3376, accuracy: 25.0)

    /// The stand-ins and the two daemons, started for one test.
    struct Stack {
        let directory: TemporaryDirectory
        let bus: PrivateSystemBus
        let wifi: StandInWifi
        let service: StandInGeolocate
        let network: NetworkLocationProcess
        let daemon: DaemonProcess

        init() throws {
            directory = try TemporaryDirectory(prefix: "locd-network-e2e")
            bus = try PrivateSystemBus(directory: directory.path)
            wifi = try StandInWifi(
                .wpaSupplicant,
                points: StandInWifi.threeWithNomap,
                bus: bus,
                directory: directory.path
            )
            service = try StandInGeolocate(directory: directory.path)
            try service.answer(latitude: first.latitude, longitude: first.longitude, accuracy: first.accuracy)
            network = try NetworkLocationProcess(directory: directory.path, bus: bus)
            daemon = try DaemonProcess(
                settings: DaemonProcess.fastLifecycle + """

                    [provider]
                    kind = "network"
                    socket = "\(network.socketPath)"
                    url = "\(service.url)"
                    consider-ip = false
                    interval = 300
                    minimum-interval = 1

                    """
            )
            try daemon.start()
        }

        func stop() {
            _ = daemon.stop()
            network.stop()
            service.stop()
            wifi.stop()
            bus.stop()
            directory.remove()
        }
    }

    private static func latitude(_ reply: JSONObject) -> Double? {
        reply["update"]?["location"]?["latitude"]?.doubleValue
    }

    @Test(
        "U8: the service's position reaches a live-updates stream; nothing is read or asked before a session needs it"
    )
    func positionReachesStream() throws {
        let stack = try Stack()
        defer { stack.stop() }
        let admin = try stack.daemon.authorize("com.ex.maps", "whileUsing")
        // locd and locd-network are up and the app is authorized, but nothing needs location yet (U3, U8).
        _ = try admin.call("io.locd.Admin.Status")
        #expect(stack.service.requests.isEmpty, "asked before any session: \(stack.service.requests)")
        #expect(try stack.wifi.reads() == 0, "the bus was read before any session")

        let app = try stack.daemon.app("com.ex.maps")
        _ = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let stream = try stack.daemon.app("com.ex.maps")
        let first = try stream.stream("io.locd.App.LiveUpdates")
        let located = Self.latitude(first) != nil ? first : try stream.next { Self.latitude($0) != nil }
        let location = try #require(located["update"]?["location"])
        #expect(location["latitude"]?.doubleValue == Self.first.latitude)
        #expect(location["longitude"]?.doubleValue == Self.first.longitude)
        #expect(location["horizontalAccuracy"]?.doubleValue == Self.first.accuracy)
        #expect(located.flags == [])
        // U7: what was asked carried the two mappable access points, never the _nomap one.
        let asked = stack.service.macAddresses(ofRequest: 0)
        #expect(Set(asked) == ["00:11:22:33:44:01", "00:11:22:33:44:02"], "\(stack.service.requests)")
        #expect(stack.service.badRequests.isEmpty, "\(stack.service.badRequests)")
        let status = try admin.call("io.locd.Admin.Status")["status"] ?? .null
        #expect(status["lastFixFrom"] == .string("network"))
        #expect(status["provider"]?["state"] == .string("running"))
    }

    @Test("U9, U11: new access points lead to a new position; the service gone is locationUnavailable, back a fix")
    func changesAndOutages() throws {
        let stack = try Stack()
        defer { stack.stop() }
        _ = try stack.daemon.authorize("com.ex.maps", "whileUsing")
        let app = try stack.daemon.app("com.ex.maps")
        _ = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let stream = try stack.daemon.app("com.ex.maps")
        let first = try stream.stream("io.locd.App.LiveUpdates")
        if Self.latitude(first) != Self.first.latitude {
            _ = try stream.next { Self.latitude($0) == Self.first.latitude }
        }

        // The machine moves: the service will place it elsewhere, and a strong new access point is in view.
        try stack.service.answer(latitude: Self.second.latitude, longitude: Self.second.longitude, accuracy: 25)
        try stack.wifi.add(StandInWifi.Point("00:11:22:33:44:04", "Museum", -35))
        let moved = try stream.next { Self.latitude($0) == Self.second.latitude }
        #expect(moved["update"]?["location"]?["horizontalAccuracy"]?.doubleValue == Self.second.accuracy)
        let asked = try #require(stack.service.requests.last?["wifiAccessPoints"]?.arrayValue)
        #expect(asked.contains { $0["macAddress"] == .string("00:11:22:33:44:04") })
        #expect(!asked.contains { $0["macAddress"] == .string("00:11:22:33:44:03") }, "the _nomap access point")

        // The service goes away; the next reading of the access points finds it gone: no location, and why. (Back
        // to the first set of access points would be answered from what locd-network kept, U25: another one.)
        try stack.service.switchOff()
        try stack.wifi.remove("00:11:22:33:44:01")
        let lost = try stream.next { $0.flags.contains("locationUnavailable") }
        #expect(lost["update"]?["location"] == nil)
        #expect(stack.network.log.contains("cannot reach the service"), "\(stack.network.log)")
        // It returns: locd-network asks again after its back-off, and the stream has a location again.
        try stack.service.switchOn()
        let back = try stream.next { Self.latitude($0) != nil }
        #expect(back.flags == [])
        #expect(Self.latitude(back) == Self.second.latitude)
        #expect(stack.daemon.stop() == 0)
        #expect(
            stack.daemon.errorOutput.contains(
                "provider network lost its fix: locd-network has no position: cannot reach"
            ),
            "\(stack.daemon.errorOutput)"
        )
    }
}
