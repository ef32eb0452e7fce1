import Foundation
import JSON
import LocationTestSupport
import Testing

@testable import LocationGeoClue

/// A started GeoClue client outlasts what locd takes away for a while and resumes by itself (SEMANTICS G16), and a
/// `Start` is answered before the client's own D-Bus timeout (G17): through the real locd and locd-geoclue.
@Suite("GeoClue2: clients resume by themselves; Start is answered in time")
struct GeoClueResumeTests {
    /// How many Locations the `watch` or `start-waiting` client has printed so far.
    static func locations(_ client: ScriptProcess) -> Int {
        client.objects.filter { $0["location"] != nil }.count
    }

    @Test(
        "G16: a started client whose grant is revoked stays Active and gets a new location without Start once allowed"
    )
    func revokedClientResumes() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.revoked", "while-using"]).status == 0)
        let watcher = try harness.pythonRunning(["watch", "test.revoked", "8"])
        defer { watcher.closeInput() }
        #expect(eventually(timeout: 20, every: 0.05) { Self.locations(watcher) >= 1 }, "\(watcher.log)")
        let session = try #require(try harness.sessions(of: "test.revoked").first?["id"] as? String)
        #expect(try harness.locctl(["auth", "test.revoked", "never"]).status == 0)
        let bridge = try #require(harness.bridge)
        #expect(bridge.waitFor("no location for the client for now"), "\(bridge.log)")
        // Still started, its session kept: nothing a GeoClue client would have to act on.
        #expect(try harness.inUse() == "b true")
        #expect(try harness.sessions(of: "test.revoked").compactMap { $0["id"] as? String } == [session])
        let before = Self.locations(watcher)
        #expect(try harness.locctl(["auth", "test.revoked", "while-using"]).status == 0)
        #expect(eventually(timeout: 20, every: 0.05) { Self.locations(watcher) > before }, "\(watcher.log)")
        #expect(watcher.log.components(separatedBy: "\"started\"").count == 2, "\(watcher.log)")
    }

    @Test("G16: a started client stays Active while location services are off and resumes without Start when on")
    func servicesOffAndOnResumes() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.holder", "while-using"]).status == 0)
        let watcher = try harness.pythonRunning(["watch", "test.holder", "8"])
        defer { watcher.closeInput() }
        #expect(eventually(timeout: 20, every: 0.05) { Self.locations(watcher) >= 1 }, "\(watcher.log)")
        #expect(try harness.locctl(["services", "off"]).status == 0)
        let bridge = try #require(harness.bridge)
        #expect(bridge.waitFor("location services are off in locd"), "\(bridge.log)")
        #expect(try harness.inUse() == "b true")
        let before = Self.locations(watcher)
        #expect(try harness.locctl(["services", "on"]).status == 0)
        #expect(eventually(timeout: 20, every: 0.05) { Self.locations(watcher) > before }, "\(watcher.log)")
        #expect(watcher.log.components(separatedBy: "\"started\"").count == 2, "\(watcher.log)")
    }

    @Test("G16: after locd crashes and restarts, a started client takes its session back and resumes without Start")
    func locdRestartResumes() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.holder", "while-using"]).status == 0)
        let watcher = try harness.pythonRunning(["watch", "test.holder", "8"])
        defer { watcher.closeInput() }
        #expect(eventually(timeout: 20, every: 0.05) { Self.locations(watcher) >= 1 }, "\(watcher.log)")
        let session = try #require(try harness.sessions(of: "test.holder").first?["id"] as? String)
        let before = Self.locations(watcher)
        try harness.crashAndRestartLocd()
        // A new location with no Start: locd-geoclue connected again and opened the updates of the same session.
        #expect(eventually(timeout: 30, every: 0.05) { Self.locations(watcher) > before }, "\(watcher.log)")
        #expect(watcher.log.components(separatedBy: "\"started\"").count == 2, "\(watcher.log)")
        #expect(try harness.inUse() == "b true")
        // Taken back (S14), not a new one beside it, and owned again (not lingering); no prompt shown.
        let sessions = try harness.sessions(of: "test.holder")
        #expect(sessions.compactMap { $0["id"] as? String } == [session], "\(sessions)")
        #expect(sessions.first?["state"] as? String != "lingering", "\(sessions)")
        let locd = try #require(harness.locd)
        #expect(!locd.log.contains("shown for"), "\(locd.log)")
    }

    @Test("G17: the bound on a Start is below the D-Bus default method-call timeout of 25 s")
    func startBoundIsBelowTheDBusTimeout() {
        #expect(GeoClueLimits().startSeconds < 25)
        #expect(GeoClueLimits().startSeconds >= 10)
    }

    @Test(
        "G17: a Start whose prompt an agent holds unanswered is answered AccessDenied before 25 s; allowed later, the client starts by itself"
    )
    func unansweredStartAnsweredInTime() throws {
        let harness = try GeoClueHarness(promptTimeout: 120)
        // A GeoClue agent that is there and never answers: AuthorizeApp stays unanswered (P14 does not apply).
        let silent = try GeoClueAgentTests.agent(harness, "silent")
        defer { silent.closeInput() }
        let client = try harness.pythonRunning(["start-waiting", "test.unanswered"])
        defer { client.closeInput() }
        let reply = try #require(client.waitFor(timeout: 40) { $0["seconds"] != nil }, "\(client.log)")
        #expect(reply["error"]?.stringValue == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["seconds"]?.doubleValue ?? 99) < 25, "\(reply)")
        let message = reply["message"]?.stringValue ?? ""
        #expect(message.contains("not authorized yet for UID"), "\(message)")
        #expect(message.contains("locctl agent") && message.contains("locctl auth test.unanswered while-using"))
        #expect(silent.log.contains("\"asked\""), "\(silent.log)")
        // The prompt still waits for the person; answered allow, the client is served with no new Start.
        let agent = try harness.allowingAgent()
        defer { agent.stop() }
        #expect(eventually(timeout: 20, every: 0.05) { Self.locations(client) >= 1 }, "\(client.log)")
        #expect(try harness.inUse() == "b true")
    }
}
