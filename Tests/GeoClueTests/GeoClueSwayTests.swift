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
        FileManager.default.createFile(atPath: log, contents: nil)
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
}
