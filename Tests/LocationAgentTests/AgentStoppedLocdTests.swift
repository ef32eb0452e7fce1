import Foundation
import JSON
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// locd-agent while locd does not answer: its calls to locd never hold its thread (N3).
extension AgentDesktopTests {
    /// A connection of the person's session bus that watches every `ActionInvoked` (an eavesdropping match: dunst
    /// sends it to locd-agent alone), and as soon as it sees one, pings locd-agent (`org.freedesktop.DBus.Peer.Ping`,
    /// 3 s at most). The bus queues the click for locd-agent when it sends the copy here, and the ping after it, so
    /// locd-agent reads the click first.
    private static let pingAfterClick = """
        import json, threading, time
        import gi
        gi.require_version("Gio", "2.0")
        from gi.repository import Gio, GLib
        bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        clicked = threading.Event()
        def watch(connection, message, incoming):
            if incoming and message.get_member() == "ActionInvoked":
                clicked.set()
            return message
        bus.add_filter(watch)
        bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch",
                      GLib.Variant("(s)", ("type='signal',member='ActionInvoked',eavesdrop='true'",)), None,
                      Gio.DBusCallFlags.NONE, -1, None)
        print(json.dumps({"ready": True}), flush=True)
        clicked.wait()
        start = time.monotonic()
        try:
            bus.call_sync("io.locd.Agent", "/", "org.freedesktop.DBus.Peer", "Ping", None, None,
                          Gio.DBusCallFlags.NONE, 3000, None)
            print(json.dumps({"answered": time.monotonic() - start}), flush=True)
        except GLib.Error as error:
            print(json.dumps({"unanswered": error.message}), flush=True)
        """

    @Test(
        """
        N3: with locd stopped (SIGSTOP) when the person chooses Allow While Using App in dunst, locd-agent still answers \
        a ping on its own name at once, and the answer reaches locd once it continues
        """,
        .enabled(
            if: Desktop.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
            "needs dunst, Xvfb, dbus-daemon and Python's GI"
        )
    )
    func answerWhileLocdStopped() throws {
        let (daemon, desktop, maps) = try mapsPrompted()
        let pinger = try desktop.start(["/usr/bin/python3", "-c", Self.pingAfterClick], log: "pinger.log")
        #expect(pinger.waitFor { $0["ready"] != nil } != nil, "\(pinger.log)")
        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        let menu = try desktop.choose("Allow While Using App")
        #expect(menu.contains("#Allow While Using App (Allow “Maps” to use your location?)"), "\(menu)")
        let ping = try #require(pinger.waitFor { $0["answered"] != nil || $0["unanswered"] != nil }, "\(pinger.log)")
        #expect(ping["answered"] != nil, "locd-agent held its thread for locd: \(ping)")
        // The notification stays until locd, continued, takes the answer and withdraws the prompt.
        #expect(try desktop.displayed() == 1)
        daemon.signal(SIGCONT)
        #expect(eventually { (try? authorization("com.ex.maps", daemon))?["status"] == .string("authorizedWhenInUse") })
        #expect(desktop.waitForDisplayed(0))
        withExtendedLifetime(maps) {}
    }

    /// Connects to locd's socket (the first argument) until its queue of connections not yet accepted is full (a
    /// non-blocking connect then fails with EAGAIN), and holds them until its standard input closes.
    private static let queueFiller = """
        import json, resource, socket, sys
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        held, full = [], False
        while len(held) < hard - 64:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(sys.argv[1])
            except BlockingIOError:
                s.close()
                full = True
                break
            held.append(s)
        print(json.dumps({"held": len(held), "full": full}), flush=True)
        sys.stdin.read()
        """

    @Test(
        """
        N3: with locd stopped and its queue of connections full, an answer the person chooses cannot be sent: \
        locd-agent says so at once and still answers its own name, and the notification stays to be chosen again, \
        which is taken once locd continues
        """,
        .enabled(
            if: Desktop.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
            "needs dunst, Xvfb, dbus-daemon and Python's GI"
        )
    )
    func answerToAFullQueue() throws {
        let (daemon, desktop, maps) = try mapsPrompted()
        let pinger = try desktop.start(["/usr/bin/python3", "-c", Self.pingAfterClick], log: "pinger.log")
        #expect(pinger.waitFor { $0["ready"] != nil } != nil, "\(pinger.log)")
        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        let filler = try ScriptProcess(
            ["/usr/bin/python3", "-c", Self.queueFiller, daemon.socketPath],
            logPath: desktop.directory.at("filler.log")
        )
        let held = try #require(filler.waitFor { $0["held"] != nil }, "\(filler.log)")
        try #require(held["full"] == .bool(true), "\(held)")
        _ = try desktop.choose("Allow While Using App")
        let ping = try #require(pinger.waitFor { $0["answered"] != nil || $0["unanswered"] != nil }, "\(pinger.log)")
        #expect(ping["answered"] != nil, "locd-agent held its thread for locd: \(ping)")
        func agentLog() -> String {
            (try? String(contentsOfFile: desktop.directory.at("agent.log"), encoding: .utf8)) ?? ""
        }
        #expect(eventually { agentLog().contains("cannot answer prompt") }, "\(agentLog())")
        #expect(try desktop.displayed() == 1)
        filler.closeInput()
        daemon.signal(SIGCONT)
        _ = try desktop.choose("Allow While Using App")
        #expect(eventually { (try? authorization("com.ex.maps", daemon))?["status"] == .string("authorizedWhenInUse") })
        #expect(desktop.waitForDisplayed(0))
        withExtendedLifetime(maps) {}
    }
}
