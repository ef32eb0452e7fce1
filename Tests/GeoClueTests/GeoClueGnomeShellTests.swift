import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A GeoClue client whose app has a window in a real GNOME Shell 43 session follows the focus as a native app does
/// (SEMANTICS L12, L16, G16): the window's GTK application id is the client's DesktopId, and locd-agent, started in
/// the session with nothing but its environment, reports what the project's extension says.
@Suite("GeoClue clients follow GNOME Shell's focus", .serialized)
struct GeoClueGnomeShellTests {
    private static let runs = GnomeSession.isAvailable && getuid() == 0

    @Test(
        "L12, L16, G16: a While-Using GeoClue client of a GTK app stops receiving once its window is minimised past the grace, and resumes in front",
        .enabled(if: runs, "needs root, gnome-shell, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func followsTheFocus() throws {
        let session = try GnomeSession()
        let uid = session.account.uid
        // The app's manifest names the session's person, whose uid the session's account gives (I9).
        let manifest = """
            id = "test.allowed"
            identity = "uid"
            users = ["\(uid)"]
            NSLocationWhenInUseUsageDescription = "Shows where you are"
            """
        let harness = try GeoClueHarness(manifests: ["test.allowed": manifest], backgroundGrace: 0.5)
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        _ = harness.unprivileged(uid)  // opens the harness's directory, so that the person's client reaches the bus
        _ = try session.openWindow("test.allowed")
        _ = try session.openWindow("org.example.Notes")
        let log = session.directory.at("client.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        chown(log, uid, uid)
        let client = try session.start(
            ["/usr/bin/env"] + harness.busEnvironment.map { "\($0.key)=\($0.value)" } + [
                "/bin/sh", "-c",
                "exec /usr/bin/python3 \(GeoClueHarness.fixture("geoclue_client.py")) watch test.allowed 8 >>\(log) 2>&1",
            ],
            log: "client-start.log"
        )
        let agent = try session.start(
            [GeoClueHarness.binary("locd-agent"), "--socket", harness.socket, "--verbose"],
            log: "agent.log"
        )
        func app() -> [String: Any]? { try? harness.app("test.allowed", of: uid) }
        func locations() -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "\"location\"").count
                - 1
        }
        try session.drive("Activate", "test.allowed")
        #expect(
            eventually(timeout: 20) {
                app()?["state"] as? String == "foreground" && app()?["stateSource"] as? String == "gnome-shell"
            },
            "\(agent.log)\n\(client.log)\n\(String(describing: app()))"
        )
        #expect(
            eventually { locations() >= 1 },
            "in front: it receives. \(String(describing: try? String(contentsOfFile: log, encoding: .utf8)))"
        )
        try session.drive("Activate", "org.example.Notes")
        try session.drive("Minimize", "test.allowed")
        #expect(eventually(timeout: 2) { app()?["state"] as? String == "background" }, "\(agent.log)")
        #expect(eventually(timeout: 3) { app()?["inUse"] as? Bool == false }, "past the grace")
        #expect(
            eventually { (try? harness.locctl(["status", "--json"]).output.contains("\"test.allowed\"")) == false }
        )
        let received = locations()
        try session.drive("Activate", "test.allowed")
        #expect(
            eventually(timeout: 2) { app()?["state"] as? String == "foreground" && app()?["inUse"] as? Bool == true }
        )
        #expect(eventually { locations() > received }, "its updates come again, with no Start (G16)")
    }
}
