import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// locd-agent on an X11 desktop with an EWMH window manager (Xvfb and Openbox as an ordinary user, real xterm
/// windows): the focus decides which of the person's apps are in the foreground, through locd's own `Admin` calls
/// (SEMANTICS L10-L15).
@Suite("locd-agent reads an X11 desktop", .serialized)
struct AgentX11Tests {
    private static let runs = EWMHDesktop.isAvailable && Desktop.isAvailable && getuid() == 0
    private static let alice: UInt32 = 61_051

    /// locd; Alice's X11 desktop with an xterm of class `com.ex.maps` running the app (locd-example, a client of locd
    /// with a whenInUse session and live updates) and one of another program; her locd-agent, given the display alone.
    final class Scene {
        let daemon: DaemonProcess
        let desktop: EWMHDesktop
        let session: Desktop
        let agent: ScriptProcess
        let maps: (process: ScriptProcess, window: String)
        let notes: (process: ScriptProcess, window: String)

        init() throws {
            daemon = try DaemonProcess()
            try daemon.start()
            _ = try daemon.authorize("com.ex.maps", "whileUsing")
            desktop = try EWMHDesktop(uid: AgentX11Tests.alice)
            maps = try desktop.openTerminal(
                class: "com.ex.maps",
                running: [
                    DaemonProcess.executable("locd-example"), "--socket", daemon.socketPath, "--app", "com.ex.maps",
                    "--state", "foreground",
                ]
            )
            notes = try desktop.openTerminal(class: "org.example.Notes")
            // Her session bus (the agent needs one), and the agent with DISPLAY and no XDG_CURRENT_DESKTOP.
            session = try Desktop(display: try XDisplay(), uid: AgentX11Tests.alice)
            agent = try session.start(
                [
                    "/usr/bin/env", "DISPLAY=\(desktop.display)", DaemonProcess.executable("locd-agent"), "--socket",
                    daemon.socketPath, "--verbose",
                ],
                log: "agent.log"
            )
        }

        /// Alice's `com.ex.maps` as an administrator's `ListApps` shows it.
        func entry() -> JSONValue? {
            let apps = try? daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue
            return apps?.first {
                $0["appId"] == .string("com.ex.maps") && $0["user"] == .int(Int64(AgentX11Tests.alice))
            }
        }

        func state() -> String? { entry()?["state"]?.stringValue }
        func inUse() -> Bool? { entry()?["inUse"]?.boolValue }
        func receiving() -> Bool {
            let status = try? daemon.connect().call("io.locd.Admin.Status")["status"]
            return status?["appsUsingLocation"]?.arrayValue?.contains(.string("com.ex.maps")) ?? false
        }

        var logs: String { "agent: \(agent.log)\nmaps: \(maps.process.log)" }
    }

    @Test(
        "L15, N15: on X11, ListApps's state and inUse follow the focus within 2 s; updates stop and resume",
        .enabled(if: runs, "needs Xvfb, openbox, xterm, xdotool, dunst, dbus-daemon, and root")
    )
    func stateFollowsFocus() throws {
        let scene = try Scene()
        try scene.desktop.xdotool("windowactivate", "--sync", scene.maps.window)
        #expect(
            eventually(timeout: 20) {
                scene.entry()?["stateSource"] == .string("x11") && scene.state() == "foreground"
            },
            "\(scene.logs)"
        )
        #expect(eventually { scene.receiving() }, "in front and allowed While Using: it receives. \(scene.logs)")
        // Another window focused, the app's still shown: still in front (L10). Minimised: not.
        try scene.desktop.xdotool("windowactivate", "--sync", scene.notes.window)
        try scene.desktop.xdotool("windowminimize", "--sync", scene.maps.window)
        #expect(eventually(timeout: 2) { scene.state() == "background" }, "\(scene.logs)")
        #expect(eventually(timeout: 2) { scene.inUse() == false }, "past the grace")
        #expect(eventually(timeout: 2) { !scene.receiving() }, "While-Using updates stop")
        try scene.desktop.xdotool("windowactivate", "--sync", scene.maps.window)
        #expect(eventually(timeout: 2) { scene.state() == "foreground" && scene.inUse() == true })
        #expect(eventually { scene.receiving() }, "and resume")
    }

    @Test(
        "L15: a window that forges _NET_WM_PID to name the app's process does not bring the app to the front",
        .enabled(if: runs, "needs Xvfb, openbox, xterm, xdotool, dunst, dbus-daemon, and root")
    )
    func forgedPidDoesNotRaise() throws {
        let scene = try Scene()
        try scene.desktop.xdotool("windowminimize", "--sync", scene.maps.window)
        try scene.desktop.xdotool("windowactivate", "--sync", scene.notes.window)
        #expect(eventually(timeout: 20) { scene.state() == "background" }, "\(scene.logs)")
        // The notes window, in front, says it belongs to the app's terminal.
        let forged = try scene.desktop.run([
            "/usr/bin/xprop", "-id", scene.notes.window, "-f", "_NET_WM_PID", "32c", "-set", "_NET_WM_PID",
            "\(scene.maps.process.process.processIdentifier)",
        ])
        #expect(forged.status == 0, "\(forged.output)")
        // A change the agent reads (the focus leaves the notes window and comes back); the app stays in the background.
        try scene.desktop.xdotool("windowactivate", "--sync", scene.maps.window)
        #expect(eventually(timeout: 2) { scene.state() == "foreground" }, "\(scene.logs)")
        try scene.desktop.xdotool("windowminimize", "--sync", scene.maps.window)
        try scene.desktop.xdotool("windowactivate", "--sync", scene.notes.window)
        #expect(eventually(timeout: 2) { scene.state() == "background" }, "\(scene.logs)")
        #expect(eventually(timeout: 2) { scene.inUse() == false }, "\(scene.logs)")
        #expect(scene.state() == "background", "\(scene.logs)")
    }
}
