import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// locd-agent with no arguments in a wlroots session it reads through the foreign-toplevel protocol alone, by Phosh's
/// rule (SEMANTICS L17, L10, L11, N15): in a real headless phoc, Phosh's own compositor, and in a real headless sway
/// whose IPC socket the agent is not told of (no `SWAYSOCK`); real `foot` windows of an ordinary user in both.
@Suite("locd-agent reads a wlroots compositor", .serialized)
struct AgentWlrootsTests {
    private static let runs = Desktop.isAvailable && getuid() == 0
    private static let person: UInt32 = 61_052

    /// A compositor of the person's: its environment for locd-agent, and how windows open and come to the front.
    private struct Compositor {
        let environment: [String: String]
        let open: (_ appID: String, _ command: [String]) throws -> ScriptProcess
        let focus: (String) throws -> Void
        let owner: AnyObject
    }

    private static func phoc() throws -> Compositor {
        let phoc = try PhocSession(uid: person)
        return Compositor(
            environment: phoc.environment,
            open: { try phoc.openWindow(appID: $0, running: $1) },
            focus: phoc.focus,
            owner: phoc
        )
    }

    private static func sway() throws -> Compositor {
        let sway = try SwaySession(uid: person)
        var environment = sway.environment
        environment["SWAYSOCK"] = nil
        // Phosh's rule (L17): the activated toplevel alone is on screen, as in sway's tabbed workspace here, where the
        // protocol calls the hidden tab neither minimised nor hidden.
        environment["XDG_CURRENT_DESKTOP"] = "Phosh:GNOME"
        return Compositor(
            environment: environment,
            open: { try sway.openWindow(appID: $0, running: $1) },
            focus: sway.focus,
            owner: sway
        )
    }

    @Test(
        "L17, L10, L11, N15: on Phosh's phoc, through foreign-toplevel, ListApps's state and inUse follow the activated window",
        .enabled(
            if: runs && PhocSession.isAvailable,
            "needs phoc, foot, wlroots' examples, dunst, Xvfb, dbus-daemon, root"
        )
    )
    func followsPhoc() throws {
        try stateFollowsActivation(Self.phoc())
    }

    @Test(
        "L17, L10, L11, N15: on Phosh, through foreign-toplevel, ListApps's state and inUse follow the activated window within 2 s",
        .enabled(
            if: runs && SwaySession.isAvailable,
            "needs sway, foot, dunst, Xvfb, dbus-daemon, and root to run the person's processes"
        )
    )
    func followsSway() throws {
        try stateFollowsActivation(Self.sway())
    }

    private func stateFollowsActivation(_ compositor: Compositor) throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        _ = try daemon.authorize("com.ex.maps", "whileUsing")
        let maps = try compositor.open(
            "com.ex.maps",
            [
                DaemonProcess.executable("locd-example"), "--socket", daemon.socketPath, "--app", "com.ex.maps",
                "--state", "foreground",
            ]
        )
        _ = try compositor.open("org.example.Notes", ["/bin/cat"])
        let session = try Desktop(display: try XDisplay(), uid: Self.person)
        let agent = try session.start(
            ["/usr/bin/env", "-u", "SWAYSOCK"] + compositor.environment.map { "\($0.key)=\($0.value)" } + [
                DaemonProcess.executable("locd-agent"), "--socket", daemon.socketPath, "--verbose",
            ],
            log: "agent.log"
        )
        func entry() -> JSONValue? {
            let apps = try? daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue
            return apps?.first { $0["appId"] == .string("com.ex.maps") && $0["user"] == .int(Int64(Self.person)) }
        }
        let logs = { "agent: \(agent.log)\nmaps: \(maps.log)" }
        try compositor.focus("com.ex.maps")
        #expect(
            eventually(timeout: 20) {
                entry()?["stateSource"] == .string("wlroots") && entry()?["state"] == .string("foreground")
            },
            "\(logs())"
        )
        try compositor.focus("org.example.Notes")
        #expect(eventually(timeout: 2) { entry()?["state"] == .string("background") }, "\(logs())")
        #expect(eventually(timeout: 2) { entry()?["inUse"] == .bool(false) }, "past the grace (0.4 s here)")
        try compositor.focus("com.ex.maps")
        #expect(
            eventually(timeout: 2) { entry()?["state"] == .string("foreground") && entry()?["inUse"] == .bool(true) },
            "\(logs())"
        )
        #expect(agent.log.contains("reading wlroots"), "\(agent.log)")
        withExtendedLifetime(compositor.owner) {}
    }
}
