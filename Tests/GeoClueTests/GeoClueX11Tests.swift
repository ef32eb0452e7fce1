import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A GeoClue client in a real X11 window follows the focus as a native app does (SEMANTICS L11, L12, L15, G16): the
/// client's process runs in an xterm of the person's Openbox desktop, and locd-agent, given the display alone,
/// reports what the X server shows.
@Suite("GeoClue clients follow an X11 desktop's focus", .serialized)
struct GeoClueX11Tests {
    private static let runs = EWMHDesktop.isAvailable && Desktop.isAvailable && getuid() == 0

    @Test(
        "L12, L15, G16: a While-Using GeoClue client in an xterm stops receiving once minimised past the grace, and resumes in front",
        .enabled(if: runs, "needs Xvfb, openbox, xterm, xdotool, dbus-daemon, and root to run the person's processes")
    )
    func followsTheFocus() throws {
        let harness = try GeoClueHarness(backgroundGrace: 0.5)
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let uid = GeoClueHarness.ordinaryUID
        _ = harness.unprivileged(uid)  // opens the harness's directory, so that the person's client reaches the bus
        let desktop = try EWMHDesktop(uid: uid)
        let log = desktop.directory.at("client.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        chown(log, uid, uid)
        // The client's process descends from the terminal's: a GeoClue program run in an xterm whose X class names
        // no app of locd, so that only the process ties the window to the client's app.
        let bus = harness.busEnvironment.map { "'\($0.key)=\($0.value)'" }
        let client = try desktop.openTerminal(
            class: "XTerm",
            running: [
                "/bin/sh", "-c",
                "exec /usr/bin/env \(bus.joined(separator: " ")) /usr/bin/python3 "
                    + "\(GeoClueHarness.fixture("geoclue_client.py")) watch test.allowed 8 >>\(log) 2>&1",
            ]
        )
        let notes = try desktop.openTerminal(class: "org.example.Notes")
        let session = try Desktop(display: try XDisplay(), uid: uid)
        let agent = try session.start(
            [
                "/usr/bin/env", "DISPLAY=\(desktop.display)", GeoClueHarness.binary("locd-agent"), "--socket",
                harness.socket, "--verbose",
            ],
            log: "agent.log"
        )
        func app() -> [String: Any]? { try? harness.app("test.allowed", of: uid) }
        func locations() -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "\"location\"").count
                - 1
        }
        try desktop.xdotool("windowactivate", "--sync", client.window)
        #expect(
            eventually(timeout: 20) {
                app()?["state"] as? String == "foreground" && app()?["stateSource"] as? String == "x11"
            },
            "\(agent.log)\(String(describing: app()))"
        )
        #expect(
            eventually { locations() >= 1 },
            "in front: it receives. \(String(describing: try? String(contentsOfFile: log, encoding: .utf8)))"
        )
        try desktop.xdotool("windowactivate", "--sync", notes.window)
        try desktop.xdotool("windowminimize", "--sync", client.window)
        #expect(eventually(timeout: 2) { app()?["state"] as? String == "background" }, "\(agent.log)")
        #expect(eventually(timeout: 3) { app()?["inUse"] as? Bool == false }, "past the grace")
        #expect(
            eventually { (try? harness.locctl(["status", "--json"]).output.contains("\"test.allowed\"")) == false }
        )
        let received = locations()
        try desktop.xdotool("windowactivate", "--sync", client.window)
        #expect(
            eventually(timeout: 2) { app()?["state"] as? String == "foreground" && app()?["inUse"] as? Bool == true }
        )
        #expect(eventually { locations() > received }, "its updates come again, with no Start (G16)")
    }
}
