import Foundation
import LocationTestSupport
import Testing

/// GeoClue's contract as clients see it, each scenario run against locd-geoclue and against the real GeoClue 2.6
/// with the same code and the same expectations: the tests check GeoClue's behaviour, not a reading of it.
@Suite("GeoClue2: the same scenarios against locd-geoclue and GeoClue 2.6", .serialized)
struct GeoClueContractTests {
    @Test(
        "G22: the first LocationUpdated names a Location with the eight properties and GeoClue's sentinels",
        arguments: GeoClueOwner.allCases
    )
    func locationProperties(owner: GeoClueOwner) throws {
        let running = try owner.start()
        let result = try running.python("geoclue_client.py", ["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["error"] == nil, "\(location)\n\(running.agent?.log ?? "")")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(location["Longitude"] as? Double == GeoClueHarness.longitude, "\(location)")
        // GeoClue 2.6 sends the first fix of whichever source answers first: its NMEA source's (a GGA without HDOP,
        // which it reports as 0 m), or under load its Wi-Fi source's city-level 5000 m, which it also serves to an
        // exact client. A radius of at most 5000 m, either way.
        let accuracy = location["Accuracy"] as? Double ?? -1
        #expect(accuracy >= 0 && accuracy <= 5000, "\(location)")
        // Neither source measures altitude, speed or heading: the sentinels say so.
        #expect(location["Altitude"] as? Double == -Double.greatestFiniteMagnitude, "\(location)")
        #expect(location["Speed"] as? Double == -1, "\(location)")
        #expect(location["Heading"] as? Double == -1, "\(location)")
        #expect(location["Description"] is String, "\(location)")
        let timestamp = location["Timestamp"] as? [Any] ?? []
        #expect(timestamp.count == 2 && (timestamp.first as? Int ?? 0) > 1_600_000_000, "\(location)")
        #expect(location["old"] as? String == "/", "\(location)")
        #expect((location["new"] as? String ?? "").hasPrefix("/org/freedesktop/GeoClue2/"), "\(location)")
        // PropertiesChanged of Active comes before the first signal from both; GeoClue's of Location may follow the
        // signal (GDBus sends it from an idle callback), so its order is no part of the contract.
        let changed = location["changed"] as? [String] ?? []
        #expect(changed.contains("Active"), "\(changed)")
    }

    @Test("G22: another peer's Start on a client answers AccessDenied", arguments: GeoClueOwner.allCases)
    func anotherPeerIsDenied(owner: GeoClueOwner) throws {
        let running = try owner.start()
        let holder = try running.runInBackground([
            "/usr/bin/python3", GeoClueHarness.fixture("geoclue_client.py"), "hold", "test.holder",
        ])
        defer { holder.closeInput() }
        #expect(holder.waitFor("\"client\""), "\(holder.log)")
        let path = try #require(
            holder.log.split(separator: "\"").first { $0.hasPrefix("/org/freedesktop/GeoClue2/Client/") },
            "\(holder.log)"
        )
        let start = try running.run([
            "/usr/bin/gdbus", "call", "--system", "--dest", "org.freedesktop.GeoClue2", "--object-path", String(path),
            "--method", "org.freedesktop.GeoClue2.Client.Start",
        ])
        #expect(start.status != 0)
        #expect(start.errors.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(start.errors)")
    }

    @Test("G22: Start without DesktopId answers AccessDenied naming DesktopId", arguments: GeoClueOwner.allCases)
    func startWithoutDesktopID(owner: GeoClueOwner) throws {
        let running = try owner.start()
        let result = try running.python("geoclue_client.py", ["no-desktop-id"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("DesktopId"), "\(reply)")
    }

    @Test("G22: setting Active answers InvalidArgs", arguments: GeoClueOwner.allCases)
    func settingActiveIsInvalid(owner: GeoClueOwner) throws {
        let running = try owner.start()
        let result = try running.python("geoclue_client.py", ["set-active"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(reply)")
    }
}
