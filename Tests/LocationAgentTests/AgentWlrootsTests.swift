import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// locd-agent with no arguments in a wlroots session it reads through the foreign-toplevel protocol alone: a real
/// headless sway of an ordinary user, whose IPC socket the agent is not told of (no `SWAYSOCK`), and real `foot`
/// windows (SEMANTICS L17, L10, L11, N15), read by Phosh's rule.
@Suite("locd-agent reads a wlroots compositor", .serialized)
struct AgentWlrootsTests {
    private static let runs = SwaySession.isAvailable && Desktop.isAvailable && getuid() == 0
    private static let person: UInt32 = 61_052

    @Test(
        "L17, L10, L11, N15: on Phosh, through foreign-toplevel, ListApps's state and inUse follow the activated window within 2 s",
        .enabled(if: runs, "needs sway, foot, dunst, Xvfb, dbus-daemon, and root to run the person's processes")
    )
    func stateFollowsActivation() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        _ = try daemon.authorize("com.ex.maps", "whileUsing")
        let sway = try SwaySession(uid: Self.person)
        let maps = try sway.openWindow(
            appID: "com.ex.maps",
            running: [
                DaemonProcess.executable("locd-example"), "--socket", daemon.socketPath, "--app", "com.ex.maps",
                "--state", "foreground",
            ]
        )
        try sway.openWindow(appID: "org.example.Notes")
        let session = try Desktop(display: try XDisplay(), uid: Self.person)
        var environment = sway.environment
        environment["SWAYSOCK"] = nil
        // Phosh's rule (L17): the activated toplevel alone is on screen, as in sway's tabbed workspace here, where the
        // protocol calls the hidden tab neither minimised nor hidden.
        environment["XDG_CURRENT_DESKTOP"] = "Phosh:GNOME"
        let agent = try session.start(
            ["/usr/bin/env", "-u", "SWAYSOCK"] + environment.map { "\($0.key)=\($0.value)" } + [
                DaemonProcess.executable("locd-agent"), "--socket", daemon.socketPath, "--verbose",
            ],
            log: "agent.log"
        )
        func entry() -> JSONValue? {
            let apps = try? daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue
            return apps?.first { $0["appId"] == .string("com.ex.maps") && $0["user"] == .int(Int64(Self.person)) }
        }
        let logs = { "agent: \(agent.log)\nmaps: \(maps.log)" }
        try sway.focus("com.ex.maps")
        #expect(
            eventually(timeout: 20) {
                entry()?["stateSource"] == .string("wlroots") && entry()?["state"] == .string("foreground")
            },
            "\(logs())"
        )
        try sway.focus("org.example.Notes")
        #expect(eventually(timeout: 2) { entry()?["state"] == .string("background") }, "\(logs())")
        #expect(eventually(timeout: 2) { entry()?["inUse"] == .bool(false) }, "past the grace (0.4 s here)")
        try sway.focus("com.ex.maps")
        #expect(
            eventually(timeout: 2) { entry()?["state"] == .string("foreground") && entry()?["inUse"] == .bool(true) },
            "\(logs())"
        )
        #expect(agent.log.contains("reading wlroots"), "\(agent.log)")
    }
}
