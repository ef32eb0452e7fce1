import Foundation
import JSON
import LocationProtocol
import LocationTestSupport
import Testing
import Varlink

/// The real locd-network between a stand-in wpa_supplicant or NetworkManager on a private bus and a stand-in
/// geolocation service on 127.0.0.1: SEMANTICS U6–U12 over the socket.
@Suite(.serialized) struct NetworkLocationTests {
    static let home = "00:11:22:33:44:01"
    static let cafe = "00:11:22:33:44:02"
    static let nomap = "00:11:22:33:44:03"

    @Test("U6: a Watch gets the service's position and accuracy, asked with the access points in view")
    func position() async throws {
        let scene = try await NetworkScene.start()
        let watch = try await scene.watch()
        #expect(try await watch.next { _ in true } == ["event": "started"], "\(watch.ending) \(scene.daemon.log)")
        let position = try #require(try await watch.position())
        #expect(position["latitude"]?.doubleValue == 52.52)
        #expect(position["longitude"]?.doubleValue == 13.405)
        #expect(position["accuracy"]?.doubleValue == 5000)
        #expect(position["basis"] == "wifi")
        #expect(position["accessPoints"]?.intValue == 2)
        let now = Date().timeIntervalSince1970
        #expect(abs((position["timestamp"]?.doubleValue ?? 0) - now) < 30)
        let request = try #require(scene.service.requests.first)
        #expect(request["considerIp"] == .bool(false))
        #expect(
            request["wifiAccessPoints"]?.arrayValue == [
                .object(["macAddress": .string(Self.home), "signalStrength": .int(-50)]),
                .object(["macAddress": .string(Self.cafe), "signalStrength": .int(-60)]),
            ]
        )
        #expect(scene.service.badRequests.isEmpty)
    }

    @Test("U7: the _nomap access point never reaches the service, however the access points change")
    func nomapNeverSent() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        let watch = try await scene.watch()
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        try await offPool { try wifi.add(.init("00:11:22:33:44:13", "Another_nomap", -20)) }
        try await offPool { try wifi.add(.init("00:11:22:33:44:04", "Library", -45)) }
        #expect(try await eventually { scene.service.requests.count > 1 })
        try await offPool { try wifi.remove(Self.home) }
        #expect(try await eventually { scene.service.requests.count > 2 })
        let sent = Set((0..<scene.service.requests.count).flatMap { scene.service.macAddresses(ofRequest: $0) })
        #expect(sent == [Self.home, Self.cafe, "00:11:22:33:44:04"])
        #expect(!sent.contains(Self.nomap) && !sent.contains("00:11:22:33:44:13"))
    }

    @Test("U9: an access point added or removed leads to a new request and a new position")
    func changeAsksAgain() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        let watch = try await scene.watch()
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        try await offPool { try scene.service.answer(latitude: 48.8566, longitude: 2.3522, accuracy: 40) }
        let seen = watch.events.count
        try await offPool { try wifi.add(.init("00:11:22:33:44:04", "Library", -45)) }
        let moved = try #require(try await watch.position(after: seen))
        #expect(moved["latitude"]?.doubleValue == 48.8566)
        #expect(moved["accuracy"]?.doubleValue == 40)
        #expect(moved["accessPoints"]?.intValue == 3)
        #expect(scene.service.macAddresses(ofRequest: 1) == ["00:11:22:33:44:04", Self.home, Self.cafe])
        let again = watch.events.count
        try await offPool { try wifi.remove(Self.cafe) }
        let after = try #require(try await watch.position(after: again))
        #expect(after["accessPoints"]?.intValue == 2)
        #expect(scene.service.macAddresses(ofRequest: 2) == ["00:11:22:33:44:04", Self.home])
    }

    @Test("U11: the service going away is a lost with the reason; its return is a position again")
    func serviceAwayAndBack() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        let watch = try await scene.watch(interval: 4)
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        try await offPool { try scene.service.switchOff() }
        let seen = watch.events.count
        try await offPool { try wifi.add(.init("00:11:22:33:44:04", "Library", -45)) }
        let reason = try #require(try await watch.lost(after: seen))
        #expect(reason.contains("cannot reach the service"), "\(reason)")
        #expect(scene.daemon.log.contains("no position from http://127.0.0.1:\(scene.service.port)"))
        let lost = watch.events.count
        try await offPool { try scene.service.switchOn() }
        let back = try #require(try await watch.position(after: lost))
        #expect(back["latitude"] != nil)
        // The access point added while the service was away is read and sent: the first answer back may still
        // come from a request made before the bus was read again, a later one carries all three.
        let all = try await watch.next(after: lost) { $0["position"]?["accessPoints"]?.intValue == 3 }
        #expect(all != nil, "\(watch.events)")
    }

    @Test("U11: the system bus going away is a lost; a bus back on its address is read again without a new Watch")
    func busAwayAndBack() async throws {
        let scene = try await NetworkScene.start()
        let watch = try await scene.watch(interval: 4)
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        let seen = watch.events.count
        scene.bus.stop()
        scene.wifi?.stop()
        let gone = try await watch.next(after: seen) {
            $0["event"] == "lost" && ($0["reason"]?.stringValue?.contains("the system bus went away") ?? false)
        }
        #expect(gone != nil, "\(watch.events.dropFirst(seen))")
        let lost = watch.events.count
        let directory = scene.directory.path
        let bus = try await offPool { try PrivateSystemBus(directory: directory) }
        let wifi = try await offPool {
            try StandInWifi(.wpaSupplicant, points: StandInWifi.threeWithNomap, bus: bus, directory: directory)
        }
        let back = try #require(try await watch.position(after: lost))
        #expect(back["accessPoints"]?.intValue == 2)
        wifi.stop()
        bus.stop()
    }

    @Test("U8: nothing is read from the bus or asked of the service while no Watch is open")
    func nothingWithoutWatch() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        let info = try await VarlinkAsyncClient.connect(path: scene.daemon.socketPath)
        _ = try await info.call("org.varlink.service.GetInfo")
        info.close()
        #expect(try await offPool { try wifi.reads() } == 0)
        #expect(scene.service.requests.isEmpty)
        let watch = try await scene.watch(interval: 1)
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        watch.close()
        #expect(try await eventually(timeout: 20) { scene.daemon.log.contains("no Watch open") })
        let reads = try await offPool { try wifi.reads() }
        let requests = scene.service.requests.count
        try await offPool { try wifi.add(.init("00:11:22:33:44:04", "Library", -45)) }
        // With interval 1, a schedule still running would ask again within a second or two; none does.
        #expect(try await !eventually(timeout: 3) { scene.service.requests.count > requests })
        #expect(try await offPool { try wifi.reads() } == reads)
    }

    @Test("U11: no access point and considerIp false is lost; considerIp true asks by IP with basis ip")
    func considerIp() async throws {
        let scene = try await NetworkScene.start(points: [.init("00:11:22:33:44:03", "Private_nomap", -40)])
        let without = try await scene.watch()
        let reason = try #require(try await without.lost())
        #expect(reason == "no Wi-Fi access point in view and considerIp is false")
        #expect(scene.service.requests.isEmpty)
        let byIP = try await scene.watch(considerIp: true)
        let position = try #require(try await byIP.position())
        #expect(position["basis"] == "ip")
        #expect(position["accessPoints"]?.intValue == 0)
        #expect(scene.service.requests.first == ["considerIp": .bool(true), "wifiAccessPoints": .array([])])
    }

    @Test("U6: NetworkManager's access points are read when wpa_supplicant is not on the bus")
    func networkManager() async throws {
        let scene = try await NetworkScene.start(wifi: .networkManager)
        for source in ["networkManager", "auto"] {
            let watch = try await scene.watch(accessPoints: source)
            let position = try #require(try await watch.position())
            #expect(position["accessPoints"]?.intValue == 2)
            watch.close()
        }
        let request = try #require(scene.service.requests.first)
        #expect(
            request["wifiAccessPoints"]?.arrayValue == [
                .object(["macAddress": .string(Self.home), "signalStrength": .int(-50)]),
                .object(["macAddress": .string(Self.cafe), "signalStrength": .int(-60)]),
            ]
        )
        #expect(scene.service.macAddresses(ofRequest: scene.service.requests.count - 1) == [Self.home, Self.cafe])
    }

    @Test("U6: a Wi-Fi service listing 300 access points gets at most 256 of them read and the 20 strongest sent")
    func manyAccessPoints() async throws {
        let points = (0..<300).map { index in
            StandInWifi.Point(
                String(format: "00:11:22:33:%02x:%02x", index / 256, index % 256),
                "AP\(index)",
                -30 - index % 60
            )
        }
        let scene = try await NetworkScene.start(points: points)
        let watch = try await scene.watch()
        let position = try #require(try await watch.position())
        #expect(position["accessPoints"]?.intValue == 20)
        let signals = scene.service.requests.first?["wifiAccessPoints"]?.arrayValue?.compactMap {
            $0["signalStrength"]?.intValue
        }
        #expect(signals?.count == 20)
        #expect(signals == signals?.sorted(by: >))
        // One read of the interfaces, one of the interface's State, one of the list, and four per access point
        // read (the stand-in counts each property GetAll returns: BSSID, SSID, Signal, Age): 1027 for 256, where
        // all 300 would be 1203.
        let wifi = try #require(scene.wifi)
        #expect(try await offPool { try wifi.reads() } <= 3 + 256 * 4)
    }

    @Test("U12: each bad answer is a lost naming the problem, and locd-network goes on serving")
    func badAnswers() async throws {
        let scene = try await NetworkScene.start()
        let wifi = try #require(scene.wifi)
        let watch = try await scene.watch(interval: 1)
        _ = try #require(try await watch.position(), "\(watch.ending)\n\(scene.daemon.log)")
        // A set of access points answered already is answered from what was kept (U25): the bad answers come to a
        // set never answered, and none of them is kept, so each interval asks again.
        try await offPool { try scene.service.set(.notJSON) }
        try await offPool { try wifi.add(.init("00:11:22:33:44:04", "Library", -45)) }
        let cases: [(StandInGeolocate.Mode, String)] = [
            (.notJSON, "not JSON"), (.missing, "no \"location\""), (.latitude, "latitude 123.0 is outside"),
            (.huge, "larger than 1048576 bytes"), (.loop, "redirects in a loop"),
            (.downgrade, "redirects to a URL that is http:// to"),
            (.drip, "did not answer"), (.status, "HTTP 503"),
        ]
        for (mode, words) in cases {
            try await offPool { try scene.service.set(mode) }
            let seen = watch.events.count
            let reason = try await watch.next(after: seen) {
                $0["event"] == "lost" && ($0["reason"]?.stringValue?.contains(words) ?? false)
            }
            #expect(reason != nil, "\(mode): \(watch.events.dropFirst(seen))")
            #expect(scene.daemon.isRunning)
        }
        #expect(scene.daemon.log.contains("redirects in a loop"))
        try await offPool { try scene.service.set(.position) }
        let seen = watch.events.count
        #expect(try await watch.position(after: seen) != nil)
        #expect(scene.daemon.isRunning)
    }

    @Test("U12: a service whose certificate is not trusted is a lost, and nothing reaches it")
    func untrustedCertificate() async throws {
        let scene = try await NetworkScene.start(selfSigned: true)
        #expect(scene.service.url.hasPrefix("https://127.0.0.1:"))
        let watch = try await scene.watch()
        let reason = try #require(try await watch.lost())
        #expect(
            reason.contains("cannot reach the service") && reason.contains("CERTIFICATE_VERIFY_FAILED"),
            "\(reason)"
        )
        #expect(scene.service.requests.isEmpty && scene.service.badRequests.isEmpty)
    }

    @Test("U10: http:// to a host that is not loopback, and other bad settings, are InvalidSettings")
    func invalidSettings() async throws {
        let scene = try await NetworkScene.start()
        let plain = try await scene.watch(url: "http://api.beacondb.net/v1/geolocate")
        let error = try #require(try await plain.error())
        #expect(error.name == "io.locd.NetworkLocation.InvalidSettings")
        #expect(error.parameters["field"] == "url")
        #expect(error.parameters["reason"]?.stringValue?.contains("use https://") == true)
        let backwards = try await scene.watch(interval: 5, minimumInterval: 10)
        #expect(try await backwards.error()?.parameters["field"] == "minimumInterval")
        let client = try await VarlinkAsyncClient.connect(path: scene.daemon.socketPath)
        await #expect(throws: VarlinkError.expectedMore) {
            try await client.call(
                "io.locd.NetworkLocation.Watch",
                ["settings": .object(NetworkLocationProcess.settings(url: scene.service.url))]
            )
        }
        #expect(scene.service.requests.isEmpty)
    }

    @Test("U10: past 8 Watches a Watch is refused with LimitExceeded, and a closed one makes room")
    func watchBound() async throws {
        let scene = try await NetworkScene.start()
        var watches: [NetworkWatch] = []
        for _ in 0..<8 {
            let watch = try await scene.watch()
            _ = try #require(try await watch.next { $0["event"] == "started" })
            watches.append(watch)
        }
        let refused = try await scene.watch()
        let error = try #require(try await refused.error())
        #expect(error.name == "io.locd.NetworkLocation.LimitExceeded")
        #expect(error.parameters["maximum"]?.intValue == 8)
        watches.removeFirst().close()
        let admitted = try #require(try await waitForAdmission(scene))
        #expect(admitted["event"] == "started")
        // Equal settings share one schedule: every open Watch got the same position from one request.
        for watch in watches { #expect(try await watch.position() != nil) }
        #expect(scene.service.requests.count == 1)
    }

    /// Opens Watches until one is admitted (the close of another reaches locd-network in its own time); its
    /// first reply.
    private func waitForAdmission(_ scene: NetworkScene) async throws -> JSONObject? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let watch = try await scene.watch()
            if let first = try await watch.next({ _ in true }) { return first }
            guard try await watch.error()?.name == "io.locd.NetworkLocation.LimitExceeded" else { return nil }
        }
        return nil
    }

    @Test(
        "U6: locd-network serves the socket systemd passes it, and binds none of its own",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"))
    )
    func socketActivation() async throws {
        let directory = try TemporaryDirectory(prefix: "locd-network-activation")
        defer { directory.remove() }
        let (passed, own) = (directory.path + "/passed.sock", directory.path + "/own.sock")
        let activator = try ScriptProcess(
            [
                "/usr/bin/systemd-socket-activate", "-l", passed, NetworkLocationProcess.binary, "--socket", own,
                "--idle-timeout", "120",
            ],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-bus"],
            logPath: directory.path + "/activate.log"
        )
        defer { activator.kill9() }
        #expect(try await eventually { FileManager.default.fileExists(atPath: passed) })
        let client = try await VarlinkAsyncClient.connect(path: passed)
        defer { client.close() }
        let info = try await withThrowingTaskGroup(of: JSONObject?.self) { group in
            group.addTask { try await client.call("org.varlink.service.GetInfo") }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        #expect(info?["product"] == "locd-network", "\(activator.log)")
        #expect(!FileManager.default.fileExists(atPath: own))
    }

    @Test("F13: locd-network closes a connection that sends no call within --idle-timeout; a Watch is kept")
    func idleTimeout() async throws {
        let scene = try await NetworkScene.start(idleTimeout: 0.5)
        let opened = Date()
        let silent = try await VarlinkAsyncClient.connect(path: scene.daemon.socketPath)
        defer { silent.close() }
        let watch = try await scene.watch()
        #expect(try await eventually(timeout: 20) { !silent.isActive }, "\(scene.daemon.log)")
        #expect(Date().timeIntervalSince(opened) >= 0.45, "closed before --idle-timeout")
        #expect(try await watch.position() != nil, "\(watch.ending)\n\(scene.daemon.log)")
        #expect(watch.ending == "still open")
        #expect(scene.daemon.log.contains("no call within idle-timeout (500 ms)"))
    }

    @Test("U10: GetInfo and GetInterfaceDescription describe io.locd.NetworkLocation")
    func describes() async throws {
        let scene = try await NetworkScene.start(wifi: nil)
        let client = try await VarlinkAsyncClient.connect(path: scene.daemon.socketPath)
        let info = try await client.call("org.varlink.service.GetInfo")
        #expect(info["product"] == "locd-network")
        #expect(info["interfaces"] == .array(["org.varlink.service", "io.locd.NetworkLocation"]))
        let description = try await client.call(
            "org.varlink.service.GetInterfaceDescription",
            ["interface": "io.locd.NetworkLocation"]
        )
        #expect(description["description"]?.stringValue == LocationInterfaces.networkLocation)
    }
}
