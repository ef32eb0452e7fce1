import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// Location providers inside the real daemon: started while something needs location and stopped when
/// nothing does (U3), their fixes and losses of fix reaching clients' live updates (D9), and their state in
/// `Admin.Status`.
@Suite("Providers", .serialized)
struct ProviderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    private static func daemon(provider: String) throws -> DaemonProcess {
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + "\n[provider]\n" + provider + "\n")
        try daemon.start()
        return daemon
    }

    /// `Admin.Status`'s `provider` object.
    private static func provider(_ daemon: DaemonProcess) throws -> JSONValue {
        try #require(try daemon.connect().call("io.locd.Admin.Status")["status"]?["provider"])
    }

    /// Polls `Admin.Status` until its provider satisfies `condition`; returns that provider object.
    @discardableResult
    private static func waitForProvider(
        _ daemon: DaemonProcess,
        _ what: String,
        until condition: (JSONValue) -> Bool
    ) throws -> JSONValue {
        try waitForStatus(daemon, what) { condition($0["provider"] ?? .null) }["provider"] ?? .null
    }

    /// Polls `Admin.Status` until it satisfies `condition`, for at most `timeout` seconds; returns it.
    @discardableResult
    private static func waitForStatus(
        _ daemon: DaemonProcess,
        _ what: String,
        timeout: Double = 20,
        until condition: (JSONValue) -> Bool
    ) throws -> JSONValue {
        let admin = try daemon.connect()
        var last: JSONValue = .null
        let shown = eventually(timeout: timeout, every: 0.02) {
            last = (try? admin.call("io.locd.Admin.Status"))?["status"] ?? .null
            return condition(last)
        }
        if shown { return last }
        throw ProviderWaitFailed(description: "status never showed \(what); last: \(last.serialized)")
    }

    /// An authorized `com.ex.maps` with a `whenInUse` session, and a second connection streaming its live updates.
    private static func liveUpdates(
        _ daemon: DaemonProcess
    ) throws -> (app: VarlinkClient, session: String, stream: VarlinkClient, first: JSONObject) {
        try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let session = try #require(created.sessionID)
        let stream = try daemon.app("com.ex.maps")
        let first = try stream.stream("io.locd.App.LiveUpdates")
        return (app, session, stream, first)
    }

    @Test("U3: the static provider is stopped until a session and stream need it, runs while they do, stops after")
    func staticDemand() throws {
        let daemon = try Self.daemon(
            provider: "kind = \"static\"\nlatitude = -33.8568\nlongitude = 151.2153\naccuracy = 12"
        )
        let idle = try Self.provider(daemon)
        #expect(idle["name"] == .string("static"))
        #expect(idle["running"] == .bool(false))
        #expect(idle["state"] == .string("stopped"))
        #expect(idle["hasFix"] == .bool(false))
        #expect(idle["lastFix"] == nil)
        #expect(idle["source"] == .string("-33.8568, 151.2153"))

        try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let session = try #require(created.sessionID)
        var stream: VarlinkClient? = try daemon.app("com.ex.maps")
        let first = try stream!.stream("io.locd.App.LiveUpdates")
        if first.flags.contains("locationUnavailable") {
            let next = try stream!.next { !$0.flags.contains("locationUnavailable") }
            #expect(next.flags == [])
        }
        let running = try Self.waitForProvider(daemon, "a fix") { $0["hasFix"] == .bool(true) }
        #expect(running["running"] == .bool(true))
        #expect(running["state"] == .string("running"))
        #expect(running["lastLatitude"]?.doubleValue == -33.8568)
        #expect(running["lastLongitude"]?.doubleValue == 151.2153)
        let stamp = try #require(running["lastFix"]?.doubleValue)
        #expect(abs(stamp - Date().timeIntervalSince1970) < 60)

        // Closing the stream leaves the session, which still needs the provider; without it, nothing does.
        stream = nil
        try Self.waitForStatus(daemon, "the stream's client gone") { $0["clients"]?.intValue == 1 }
        #expect(try Self.provider(daemon)["running"] == .bool(true))
        try app.call("io.locd.App.InvalidateSession", ["id": .string(session)])
        let stopped = try Self.waitForProvider(daemon, "stopped") {
            $0["running"] == .bool(false) && $0["hasFix"] == .bool(false)
        }
        #expect(stopped["state"] == .string("stopped"))
        #expect(stopped["lastFix"]?.doubleValue == stamp, "status still says when the last fix was")
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("locd.provider=static"), "provider logs carry locd.provider")
    }

    @Test("U3: locctl status shows the provider idle, then running with its source and last fix")
    func locctlStatus() throws {
        let daemon = try Self.daemon(provider: "kind = \"static\"\nlatitude = -33.8568\nlongitude = 151.2153")
        let idle = try Self.locctlStatus(daemon)
        #expect(idle.contains("            Provider: static (idle) from -33.8568, 151.2153\n"))
        #expect(!idle.contains("Last fix"))
        let live = try Self.liveUpdates(daemon)
        try Self.waitForProvider(daemon, "a fix") { $0["hasFix"] == .bool(true) }
        let running = try Self.locctlStatus(daemon)
        #expect(running.contains("            Provider: static (running, has a fix) from -33.8568, 151.2153\n"))
        #expect(running.contains("            Last fix: -33.856800, 151.215300, "))
        _ = live
    }

    private static func locctlStatus(_ daemon: DaemonProcess) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: DaemonProcess.binary).deletingLastPathComponent()
            .appendingPathComponent("locctl")
        process.arguments = ["status"]
        process.environment = ["LOCD_SOCKET": daemon.socketPath]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        #expect(process.waitForExit().status == 0)
        return String(decoding: data, as: UTF8.self)
    }

    @Test("U3, D9: the nmea provider replays a route with a stretch without fix, looping, at speed-factor")
    func nmeaReplay() throws {
        let route = Self.fixtures.appendingPathComponent("fix-loss.nmea").path
        let daemon = try Self.daemon(provider: "kind = \"nmea\"\nfile = \"\(route)\"\nspeed-factor = 8")
        #expect(try Self.provider(daemon)["state"] == .string("stopped"))
        let (_, _, stream, first) = try Self.liveUpdates(daemon)
        var flags = first.flags
        // A fix, then the no-fix stretch, then the fix again: 24 epochs a second apart, 8 times as fast.
        if flags.contains("locationUnavailable") {
            flags = try stream.next { !$0.flags.contains("locationUnavailable") }.flags
        }
        #expect(!flags.contains("locationUnavailable"))
        #expect(try stream.next { $0.flags.contains("locationUnavailable") }.flags == ["locationUnavailable"])
        #expect(try stream.next { !$0.flags.contains("locationUnavailable") }.flags == [])
        let status = try Self.waitForProvider(daemon, "a fix") { $0["hasFix"] == .bool(true) }
        #expect(status["name"] == .string("nmea"))
        #expect(status["running"] == .bool(true))
        #expect(status["state"] == .string("running"))
        #expect(status["source"] == .string(route))
        // The route runs east along latitude 35.681236 (3540.8742 N to four places of minutes).
        let latitude = try #require(status["lastLatitude"]?.doubleValue)
        #expect(abs(latitude - 35.681237) < 1e-5)
        let first_ = try #require(status["lastFix"]?.doubleValue)
        try Self.waitForProvider(daemon, "a newer fix") { ($0["lastFix"]?.doubleValue ?? 0) > first_ }
    }

    @Test("U3: an nmea file that cannot be read fails the provider; status says why and what to do")
    func nmeaUnreadable() throws {
        let daemon = try Self.daemon(provider: "kind = \"nmea\"\nfile = \"/nonexistent/route.nmea\"")
        let (_, _, _, first) = try Self.liveUpdates(daemon)
        #expect(first.flags.contains("locationUnavailable"))
        let status = try Self.waitForProvider(daemon, "failed") { $0["state"] == .string("failed") }
        #expect(status["running"] == .bool(true))
        #expect(status["hasFix"] == .bool(false))
        #expect(status["lastError"]?.stringValue?.contains("cannot read /nonexistent/route.nmea") == true)
    }

    @Test("D9: a gpsd that cannot be reached leaves live updates locationUnavailable; status shows the retries")
    func gpsdUnreachable() throws {
        let port = try GPSFake.freePort()
        let daemon = try Self.daemon(provider: "kind = \"gpsd\"\nhost = \"127.0.0.1\"\nport = \(port)")
        let (_, _, _, first) = try Self.liveUpdates(daemon)
        #expect(first.flags == ["locationUnavailable"])
        let status = try Self.waitForProvider(daemon, "retrying") { $0["state"] == .string("retrying") }
        #expect(status["source"] == .string("127.0.0.1:\(port)"))
        #expect(status["lastError"]?.stringValue?.hasPrefix("cannot connect to gpsd at 127.0.0.1:\(port)") == true)
        #expect(status["hasFix"] == .bool(false))
    }

    @Test("U3: a gpsd behind a Unix socket path (socket wins over host and port)")
    func gpsdSocketPath() throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gpsd-\(UUID().uuidString.prefix(8)).sock"
        ).path
        let daemon = try Self.daemon(
            provider: "kind = \"gpsd\"\nhost = \"192.0.2.1\"\nport = 1\nsocket = \"\(socket)\""
        )
        _ = try Self.liveUpdates(daemon)
        let status = try Self.waitForProvider(daemon, "retrying") { $0["state"] == .string("retrying") }
        #expect(status["source"] == .string("unix:\(socket)"))
        #expect(status["lastError"]?.stringValue?.hasPrefix("cannot connect to gpsd at unix:\(socket)") == true)
    }

    @Test("U3: a reload with a changed [provider] table replaces the running provider")
    func reloadReplacesProvider() throws {
        let daemon = try Self.daemon(provider: "kind = \"static\"\nlatitude = 10\nlongitude = 20")
        let live = try Self.liveUpdates(daemon)
        try Self.waitForProvider(daemon, "a fix at 10, 20") { $0["lastLatitude"]?.doubleValue == 10 }
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "latitude = 10", with: "latitude = 11")
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.notify.waitFor("READY=1", timeout: 20)
        let moved = try Self.waitForProvider(daemon, "a fix at 11, 20") { $0["lastLatitude"]?.doubleValue == 11 }
        #expect(moved["running"] == .bool(true))
        #expect(moved["hasFix"] == .bool(true))
        #expect(moved["source"] == .string("11.0, 20.0"))
        _ = live
    }

    @Test("U17: a reload that replaces the provider drops the old one's fix: no stream is given it after the reload")
    func reloadDropsOldFix() throws {
        let daemon = try Self.daemon(provider: "kind = \"static\"\nlatitude = 10\nlongitude = 20")
        let (_, _, stream, first) = try Self.liveUpdates(daemon)
        if first["update"]?["location"]?["latitude"]?.doubleValue != 10 {
            _ = try stream.next { $0["update"]?["location"]?["latitude"]?.doubleValue == 10 }
        }
        // The new provider is a gpsd nobody serves: it never has a fix.
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        try config.replacingOccurrences(
            of: "kind = \"static\"\nlatitude = 10\nlongitude = 20",
            with: "kind = \"gpsd\"\nsocket = \"\(daemon.directory)/no-gpsd.sock\""
        ).write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.notify.waitFor("READY=1", timeout: 20)
        // The open stream hears that the location is gone, and a stream opened after the reload starts without it.
        let lost = try stream.next { $0.flags.contains("locationUnavailable") }
        #expect(lost["update"]?["location"] == nil || lost["update"]?["location"] == .null)
        let later = try daemon.app("com.ex.maps").stream("io.locd.App.LiveUpdates")
        #expect(later["update"]?["location"] == nil || later["update"]?["location"] == .null, "\(later)")
        #expect(later.flags == ["locationUnavailable"])
    }

    @Test(
        "U3, D9: a real gpsd fed by gpsfake drives live updates: fix, loss of fix (locationUnavailable), recovery",
        .enabled(
            if: GPSFake.isInstalled,
            "gpsfake is not installed: apt-get install --no-install-recommends gpsd gpsd-clients"
        )
    )
    func gpsdThroughGpsfake() throws {
        let gpsfake = try GPSFake(route: Self.fixtures.appendingPathComponent("fix-loss.nmea").path)
        defer { gpsfake.stop() }
        let daemon = try Self.daemon(provider: "kind = \"gpsd\"\nhost = \"127.0.0.1\"\nport = \(gpsfake.port)")
        let (_, _, stream, first) = try Self.liveUpdates(daemon)
        var flags = first.flags
        if flags.contains("locationUnavailable") {
            flags = try stream.next { !$0.flags.contains("locationUnavailable") }.flags
        }
        #expect(flags == [])
        let fixed = try Self.waitForProvider(daemon, "a fix from gpsd") { $0["hasFix"] == .bool(true) }
        #expect(fixed["name"] == .string("gpsd"))
        #expect(fixed["state"] == .string("running"))
        #expect(fixed["source"] == .string("127.0.0.1:\(gpsfake.port)"))
        let stamp = try #require(fixed["lastFix"]?.doubleValue)
        // gpsd dates a fix from the route's RMC sentences (22 November 2026, 12:00–12:00:23 UTC); the first
        // report before it has read a date is stamped on arrival.
        #expect((1_795_348_800..<1_795_348_824).contains(stamp) || abs(stamp - Date().timeIntervalSince1970) < 60)

        // Updates carry gpsd's positions: the route runs east along latitude 35.681236 from Tokyo Station.
        let located = try stream.next { $0["update"]?["location"]?["latitude"] != nil }
        let latitude = try #require(located["update"]?["location"]?["latitude"]?.doubleValue)
        #expect(abs(latitude - 35.681236) < 1e-4)

        // The route's eight epochs without a fix (GGA quality 0, RMC status V): no location (U1), then the fix.
        let lost = try stream.next { $0.flags.contains("locationUnavailable") }
        #expect(lost.flags == ["locationUnavailable"])
        #expect(lost["update"]?["location"] == nil || lost["update"]?["location"] == .null)
        try Self.waitForProvider(daemon, "the fix lost") {
            $0["hasFix"] == .bool(false) && $0["running"] == .bool(true)
        }
        let recovered = try stream.next { !$0.flags.contains("locationUnavailable") }
        #expect(recovered.flags == [])
        #expect(recovered["update"]?["location"]?["longitude"]?.doubleValue != nil)
        try Self.waitForProvider(daemon, "the fix again") { $0["hasFix"] == .bool(true) }
        #expect(daemon.stop() == 0)
    }
}

struct ProviderWaitFailed: Error, CustomStringConvertible {
    var description: String
}
