import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// What others on the person's session bus can and cannot do to locd-agent: forge the server's signals (N3), or
/// dress up the prompt through the app's `.desktop` file (I16).
extension AgentDesktopTests {
    /// A second connection of the person's session bus that emits `ActionInvoked(id, "allowWhileUsing")` for each
    /// id of 1...64, broadcast and then sent to locd-agent alone, then pings locd-agent: once the ping is answered,
    /// locd-agent has read every one of them (a bus delivers one connection's messages in order).
    private static let forger = """
        import sys
        import gi
        gi.require_version("Gio", "2.0")
        from gi.repository import Gio, GLib
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        for destination in (None, "io.locd.Agent"):
            for notification in range(1, 65):
                bus.emit_signal(destination, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                "ActionInvoked", GLib.Variant("(us)", (notification, "allowWhileUsing")))
        bus.call_sync("io.locd.Agent", "/", "org.freedesktop.DBus.Peer", "Ping", None, None,
                      Gio.DBusCallFlags.NONE, 5000, None)
        print("forged", flush=True)
        """

    @Test(
        """
        N3: another connection of the session bus that emits ActionInvoked(1...64, allowWhileUsing), broadcast or \
        sent to locd-agent, answers nothing; the person's own click in dunst still does
        """,
        .enabled(if: hasDesktopForForgery, "needs dunst, Xvfb, dbus-daemon and Python's GI")
    )
    func forgedActionsAnswerNothing() throws {
        let (daemon, desktop, maps) = try mapsPrompted()
        let forged = try desktop.run(["/usr/bin/python3", "-c", Self.forger])
        #expect(forged.status == 0 && forged.output.contains("forged"), "\(forged.output)")
        // The prompt is still pending: the app is undecided, and its notification still shown.
        #expect(try authorization("com.ex.maps", daemon)?["status"] == .string("notDetermined"))
        #expect(try desktop.displayed() == 1)
        // The person's own answer, Don't Allow, is the one taken: had a forged Allow While Using been taken before
        // it, the prompt would have been gone and the app allowed.
        let menu = try desktop.choose("Don't Allow")
        #expect(menu.contains("#Don't Allow (Allow “Maps” to use your location?)"), "\(menu)")
        #expect(eventually { (try? authorization("com.ex.maps", daemon))?["status"] == .string("denied") })
        withExtendedLifetime(maps) {}
    }

    @Test(
        "N3: locd-agent follows the server's owner: dunst, started after it, is heard when the person clicks",
        .enabled(if: hasDesktopForForgery, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func followsTheServer() throws {
        let (daemon, desktop) = try Self.scene(dunst: false)
        let agent = try desktop.startAgent(socket: daemon.socketPath)
        #expect(agent.waitFor("no notification server"), "\(agent.log)")
        try desktop.startDunst()
        #expect(eventually { (try? agents(daemon)) == 1 }, "\(agent.log)")
        let maps = try asking("com.ex.maps", daemon)
        #expect(desktop.waitForDisplayed(1))
        _ = try desktop.choose("Allow While Using App")
        #expect(eventually { (try? authorization("com.ex.maps", daemon))?["status"] == .string("authorizedWhenInUse") })
        withExtendedLifetime(maps) {}
    }

    @Test(
        """
        I16, N2: a .desktop Name with a right-to-left override and an isolate becomes a notification title that \
        shows them escaped, as dunst's menu of the notification reads
        """,
        .enabled(if: hasDesktopForForgery, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func hostileNameShownEscaped() throws {
        let (daemon, desktop) = try Self.scene(dunst: false)
        // The Desktop Entry reader takes no control character (a line break or ESC makes it show the app id), so
        // what a Name can carry to the title is a bidi control: "Maps" with "exe.txt" turned to read "txt.exe".
        try desktop.write(
            "share/applications/com.ex.maps.desktop",
            "[Desktop Entry]\nName=Maps\u{202E}exe.txt\u{2066}\n"
        )
        try desktop.startDunst()
        let agent = try desktop.startAgent(socket: daemon.socketPath)
        #expect(eventually { (try? agents(daemon)) == 1 }, "\(agent.log)")
        let maps = try asking("com.ex.maps", daemon)
        #expect(desktop.waitForDisplayed(1))
        let menu = try desktop.choose("Don't Allow")
        #expect(menu.contains("(Allow “Maps\\u{202e}exe.txt\\u{2066}” to use your location?)"), "\(menu)")
        #expect(!menu.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{2066}" }, "\(menu)")
        withExtendedLifetime(maps) {}
    }

    private static let hasDesktopForForgery =
        Desktop.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
}
