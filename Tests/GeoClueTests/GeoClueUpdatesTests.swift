import Foundation
import LocationTestSupport
import Testing

/// Updates over time, from a route locd replays: thresholds, replaced Location objects, and the bounds on clients.
@Suite("GeoClue2: updates, thresholds and bounds", .serialized)
struct GeoClueUpdatesTests {
    @Test("G7: every fix makes a Location, and each replaced one is still readable (G9: a second later)")
    func everyFixAndReplacedLocationsReadable() throws {
        let harness = try GeoClueHarness(provider: GeoClueHarness.walk)
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let result = try harness.python(["follow", "test.allowed", "0", "3"])
        let counts = try #require(result.objects.first, "\(result.output)\(result.errors)")
        let updates = counts["updates"] as? Int ?? 0
        let replaced = counts["replaced"] as? Int ?? 0
        // A fix every third of a second for 3 s.
        #expect(updates >= 5, "\(counts)")
        #expect(replaced == updates - 1, "\(counts)")
        #expect(counts["readable"] as? Int == replaced, "\(counts)")
    }

    @Test("G7: gammastep's DistanceThreshold of 50 km holds back every fix of a walk after the first")
    func distanceThresholdFilters() throws {
        let harness = try GeoClueHarness(provider: GeoClueHarness.walk)
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let result = try harness.python(["follow", "test.allowed", "50000", "3"])
        let counts = try #require(result.objects.first, "\(result.output)\(result.errors)")
        // The whole route spans 1.2 km: no fix of it reaches the threshold, while a fix comes every third of a second.
        #expect(counts["updates"] as? Int == 1, "\(counts)")
    }

    @Test("G8: a peer's 65th client answers LimitsExceeded")
    func clientsPerPeerBounded() throws {
        let harness = try GeoClueHarness()
        let result = try harness.python(["create-clients", "70"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["made"] as? Int == 64, "\(reply)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.LimitsExceeded", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("DeleteClient"), "\(reply)")
    }

    @Test("G6: a Stop that comes before locd has made the session ends it once made, though locd answers late")
    func stopBeforeTheSessionIsMade() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let locd = try #require(harness.locd?.process.processIdentifier)
        let client = try harness.pythonRunning(["stop-early", "test.allowed"])
        #expect(client.waitFor { $0["first"] != nil } != nil, "\(client.log)")
        #expect(try eventually(timeout: 10) { try harness.sessions(of: "test.allowed").isEmpty })
        // locd stops answering: the second client's CreateSession goes out on the peer's open connection and waits.
        kill(locd, SIGSTOP)
        defer { kill(locd, SIGCONT) }
        client.send("go")
        #expect(client.waitFor { $0["second"] != nil } != nil, "\(client.log)")
        client.process.waitForExit()
        // The peer has left. locd-geoclue's grace for a stopped run (ClientRun.endGrace, 2 s) runs out while locd is
        // stopped: that timer is what is tested, so its length is waited out.
        Thread.sleep(forTimeInterval: 3)
        kill(locd, SIGCONT)
        // locd now makes the session; locd-geoclue, still connected, ends it. Cut short, it lingered for 60 s.
        let ended = try eventually(timeout: 10) { try harness.sessions(of: "test.allowed").isEmpty }
        #expect(ended, "\((try? harness.locctl(["sessions"]).output) ?? "")\n\(harness.bridge?.log ?? "")")
    }

    @Test("G8: a peer that floods Start and Stop gets a reply to every call, LimitsExceeded past the bound")
    func startStopFloodIsBounded() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let result = try harness.python(["flood", "test.allowed", "200"], timeout: 40)
        let outcomes = try #require(result.objects.first, "\(result.output)\(result.errors)")
        let replies = outcomes.values.compactMap { $0 as? Int }.reduce(0, +)
        #expect(replies == 400, "\(outcomes)")
        #expect((outcomes["org.freedesktop.DBus.Error.LimitsExceeded"] as? Int ?? 0) > 0, "\(outcomes)")
        // Every run winds down and ends its session: nothing is left behind in locd.
        let settled = try eventually(timeout: 10, every: 0.05) { try harness.sessions(of: "test.allowed").isEmpty }
        #expect(settled, "\((try? harness.locctl(["sessions"]).output) ?? "")")
        let manager = try harness.gdbus([
            "call", "--system", "--dest", "org.freedesktop.GeoClue2", "--object-path",
            "/org/freedesktop/GeoClue2/Manager", "--method", "org.freedesktop.DBus.Properties.Get",
            "org.freedesktop.GeoClue2.Manager", "InUse",
        ])
        #expect(manager.output.contains("<false>"), "\(manager.output)\(manager.errors)")
    }
}
