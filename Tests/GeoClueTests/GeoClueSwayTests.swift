import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A GeoClue client in a real sway window follows the focus as a native app does (SEMANTICS L11, L12, G16): the
/// client's process runs in a `foot` window of the person's sway, and locd-agent reports what sway shows.
@Suite("GeoClue clients follow sway's focus", .serialized)
struct GeoClueSwayTests {
    private static let runs = SwaySession.isAvailable && Desktop.isAvailable && getuid() == 0

    @Test(
        "L11, L12, G16: a While-Using GeoClue client in a sway window stops receiving once hidden past the grace, and resumes in front",
        .enabled(if: runs, "needs sway, foot, Xvfb, dbus-daemon, and root to run the person's processes")
    )
    func followsTheFocus() throws {
        let harness = try GeoClueHarness(backgroundGrace: 0.5)
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let uid = GeoClueHarness.ordinaryUID
        _ = harness.unprivileged(uid)  // opens the harness's directory, so that the person's client reaches the bus
        let sway = try SwaySession(uid: uid)
        let log = sway.directory.at("client.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        chown(log, uid, uid)
        // The client's process descends from the window's: a GeoClue program run in a terminal window.
        let client = [
            "/bin/sh", "-c",
            "exec /usr/bin/python3 \(GeoClueHarness.fixture("geoclue_client.py")) watch test.allowed 8 >>\(log) 2>&1",
        ]
        try sway.openWindow(appID: "test.allowed", running: client, environment: harness.busEnvironment)
        try sway.openWindow(appID: "org.example.Notes")
        let session = try Desktop(display: try XDisplay(), uid: uid)
        let agent = try session.start(
            ["/usr/bin/env"] + sway.environment.map { "\($0.key)=\($0.value)" } + [
                GeoClueHarness.binary("locd-agent"), "--socket", harness.socket, "--verbose",
            ],
            log: "agent.log"
        )
        func app() -> [String: Any]? { try? harness.app("test.allowed", of: uid) }
        func locations() -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "\"location\"").count
                - 1
        }
        try sway.focus("test.allowed")
        #expect(
            eventually { app()?["state"] as? String == "foreground" && app()?["stateSource"] as? String == "sway" },
            "\(agent.log)\(String(describing: app()))"
        )
        #expect(
            eventually { locations() >= 1 },
            "in front: it receives. \(String(describing: try? String(contentsOfFile: log, encoding: .utf8)))"
        )
        try sway.focus("org.example.Notes")
        #expect(eventually(timeout: 2) { app()?["state"] as? String == "background" })
        #expect(eventually(timeout: 3) { app()?["inUse"] as? Bool == false }, "past the grace")
        #expect(
            eventually { (try? harness.locctl(["status", "--json"]).output.contains("\"test.allowed\"")) == false }
        )
        let received = locations()
        try sway.focus("test.allowed")
        #expect(
            eventually(timeout: 2) { app()?["state"] as? String == "foreground" && app()?["inUse"] as? Bool == true }
        )
        #expect(eventually { locations() > received }, "its updates come again, with no Start (G16)")
    }

    @Test(
        "L14: gammastep under its shipped manifest asks for Always, and once allowed keeps receiving, never in front",
        .enabled(if: runs, "needs sway, foot, Xvfb, dbus-daemon, gammastep, and root to run the person's processes")
    )
    func gammastepAsksForAlways() throws {
        let shipped = try String(
            contentsOfFile: Repository.root() + "/config/geoclue-apps.d/gammastep.toml",
            encoding: .utf8
        )
        let harness = try GeoClueHarness(manifests: ["gammastep": shipped], backgroundGrace: 0.5)
        let uid = GeoClueHarness.ordinaryUID
        let answering = try ScriptProcess(
            [GeoClueHarness.binary("locctl"), "agent", "--all-users", "--answer", "allowWhileUsing"],
            environment: ["LOCD_SOCKET": harness.socket],
            logPath: harness.directory + "/answering.log"
        )
        defer { answering.kill9() }
        // The person's sway and locd-agent: a desktop decides, and gammastep has no window in it.
        let sway = try SwaySession(uid: uid)
        try sway.openWindow(appID: "org.example.Notes")
        let session = try Desktop(display: try XDisplay(), uid: uid)
        let agent = try session.start(
            ["/usr/bin/env"] + sway.environment.map { "\($0.key)=\($0.value)" } + [
                GeoClueHarness.binary("locd-agent"), "--socket", harness.socket,
            ],
            log: "agent.log"
        )
        let gammastep = try ScriptProcess(
            harness.unprivileged(uid) + RealGeoClueClient.gammastep.lasting,
            environment: harness.busEnvironment.merging(["HOME": "/nonexistent"]) { $1 },
            logPath: harness.directory + "/gammastep.log"
        )
        defer { gammastep.kill9() }
        #expect(
            eventually { RealGeoClueClient.gammastep.location(in: gammastep.log) != nil },
            "\(gammastep.log)\n\(answering.log)\n\(agent.log)\n\(harness.locd?.log.suffix(3000) ?? "")\n\(harness.bridge?.log.suffix(3000) ?? "")"
        )
        #expect(answering.log.contains("Always Allow"), "its prompt offered Always: \(answering.log)")
        let record = try GeoClueAgentTests.authorization(harness, "gammastep", of: uid)
        #expect(record["status"] as? String == "authorizedAlways" && record["provisional"] as? Bool != true)
        func app() -> [String: Any]? { try? harness.app("gammastep", of: uid) }
        #expect(eventually { app()?["state"] as? String == "background" && app()?["stateSource"] as? String == "sway" })
        // Well past the grace, never in front: still using location, as Always allows.
        let using = {
            (try? harness.locctl(["status", "--json"]).output.contains("\"gammastep\"")) ?? false
        }
        #expect(eventually { app()?["inUse"] as? Bool == false }, "past the grace")
        #expect(
            using() && gammastep.process.isRunning,
            "\((try? harness.locctl(["status", "--json"]).output) ?? "")\n\((try? harness.locctl(["sessions", "--json"]).output) ?? "")"
        )
    }
}
