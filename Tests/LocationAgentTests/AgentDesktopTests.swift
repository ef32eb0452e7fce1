import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The real locd-agent between the real locd and a real notification server: dunst under Xvfb on a private session
/// bus, whose context menu the test answers as a person would, or a stand-in server that shows no buttons.
@Suite("locd-agent on a desktop", .serialized)
struct AgentDesktopTests {
    private static let hasDesktop = Desktop.isAvailable
    private static let asRoot = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    /// Two uids no system account uses: ordinary users to the kernel and to locd (as in PeopleTests).
    private static let alice: UInt32 = 61_001
    private static let bob: UInt32 = 61_002

    /// locd, and a desktop (on a display of its own) of the test's own user on them, with dunst if asked.
    static func scene(dunst: Bool) throws -> (DaemonProcess, Desktop) {
        let daemon = try DaemonProcess()
        try daemon.start()
        let desktop = try Desktop(display: try XDisplay())
        if dunst { try desktop.startDunst() }
        return (daemon, desktop)
    }

    /// The record of `appID` of user `uid`, as an administrator's `ListApps` shows it.
    func authorization(_ appID: String, of uid: UInt32 = getuid(), _ daemon: DaemonProcess) throws -> JSONValue? {
        let apps = try daemon.connect().call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        return apps.first { $0["appId"] == .string(appID) && $0["user"] == .int(Int64(uid)) }?["authorization"]
    }

    /// A client of `appID` in the foreground with a whenInUse session: its prompt goes to the agent.
    func asking(_ appID: String, _ daemon: DaemonProcess) throws -> VarlinkClient {
        let app = try daemon.app(appID, state: "foreground")
        try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        return app
    }

    func agents(_ daemon: DaemonProcess) throws -> Int64? {
        try daemon.connect().call("io.locd.Admin.Status")["status"]?["agents"]?.intValue
    }

    /// `appID` allowed While Using, in the foreground with a whenInUse session and a live-updates stream that has
    /// delivered a location: an app using location until its clients are dropped.
    private func usingLocation(_ appID: String, _ daemon: DaemonProcess) throws -> [VarlinkClient] {
        try daemon.authorize(appID, "whileUsing")
        let app = try daemon.app(appID, state: "foreground")
        try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let stream = try daemon.app(appID, state: "foreground")
        var reply = try stream.stream("io.locd.App.LiveUpdates")
        while reply["update"]?["location"].map({ $0 == .null }) ?? true { reply = try stream.next() }
        return [app, stream]
    }

    /// locd, a desktop with dunst and locd-agent, and Maps (named and drawn by its `.desktop` file) asking: its prompt
    /// is the notification shown.
    func mapsPrompted() throws -> (DaemonProcess, Desktop, VarlinkClient) {
        let (daemon, desktop) = try Self.scene(dunst: false)
        // An icon by path: the test's session has no icon theme in its data directories.
        let icon = "/usr/share/icons/Adwaita/48x48/actions/find-location-symbolic.symbolic.png"
        try desktop.write("share/applications/com.ex.maps.desktop", "[Desktop Entry]\nName=Maps\nIcon=\(icon)\n")
        try desktop.startDunst()
        let agent = try desktop.startAgent(socket: daemon.socketPath)
        #expect(eventually { (try? agents(daemon)) == 1 }, "\(agent.log)")
        let maps = try asking("com.ex.maps", daemon)
        #expect(desktop.waitForDisplayed(1))
        return (daemon, desktop, maps)
    }

    @Test(
        "N2, N3: a prompt shown by dunst with the app's name is answered there: Allow While Using App, Don't Allow",
        .enabled(if: hasDesktop, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func answeredOnTheDesktop() throws {
        let (daemon, desktop, maps) = try mapsPrompted()
        let menu = try desktop.choose("Allow While Using App")
        #expect(menu.contains("#Allow While Using App (Allow “Maps” to use your location?)"), "\(menu)")
        #expect(menu.contains("#Allow Once (") && menu.contains("#Don't Allow (") && menu.contains("#Precise: On ("))
        #expect(eventually { (try? authorization("com.ex.maps", daemon))?["status"] == .string("authorizedWhenInUse") })
        #expect(try authorization("com.ex.maps", daemon)?["accuracy"] == .string("fullAccuracy"))
        // The answered prompt is withdrawn, and its notification closes.
        #expect(desktop.waitForDisplayed(0))
        let run = try asking("com.ex.run", daemon)
        #expect(desktop.waitForDisplayed(1))
        let second = try desktop.choose("Don't Allow")
        #expect(second.contains("#Don't Allow (Allow “com.ex.run” to use your location?)"), "\(second)")
        #expect(eventually { (try? authorization("com.ex.run", daemon))?["status"] == .string("denied") })
        withExtendedLifetime((maps, run)) {}
    }

    @Test(
        """
        N2: a person sees the prompt and its choices on the display (dunst's menu in dmenu), types one, and it is the \
        answer; the screenshot goes to $LOCD_SCREENSHOTS when set (USAGE's image)
        """,
        .enabled(if: hasDesktop && XDisplay.hasMenuTools, "needs dunst, Xvfb, dmenu, xdotool and ImageMagick")
    )
    func seenAndTypedOnTheDisplay() throws {
        let (daemon, desktop, maps) = try mapsPrompted()
        let menu = try desktop.openMenuOnDisplay()
        #expect(menu.contains("#Allow While Using App (Allow “Maps” to use your location?)"), "\(menu)")
        // dmenu's six lines at the bottom of the 1024 × 600 display are drawn once they have more than a background.
        let display = desktop.display
        #expect(eventually { ((try? display.colours(x: 0, y: 440, width: 1024, height: 160)) ?? 0) > 2 })
        let screenshot = desktop.directory.at("prompt.png")
        try display.screenshot(to: screenshot)
        if let folder = ProcessInfo.processInfo.environment["LOCD_SCREENSHOTS"], !folder.isEmpty {
            try? FileManager.default.removeItem(atPath: folder + "/locd-agent-prompt.png")
            try FileManager.default.copyItem(atPath: screenshot, toPath: folder + "/locd-agent-prompt.png")
        }
        try display.type("while using")
        #expect(eventually { (try? authorization("com.ex.maps", daemon))?["status"] == .string("authorizedWhenInUse") })
        #expect(desktop.waitForDisplayed(0))
        #expect(!display.hasWindow(ofClass: "dmenu"))
        withExtendedLifetime(maps) {}
    }

    @Test(
        "N2: Precise: On flips the notification in place to Off, and the answer then gives reduced accuracy",
        .enabled(if: hasDesktop, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func preciseToggle() throws {
        let (daemon, desktop) = try Self.scene(dunst: true)
        let agent = try desktop.startAgent(socket: daemon.socketPath)
        let maps = try asking("com.ex.maps", daemon)
        #expect(desktop.waitForDisplayed(1))
        _ = try desktop.choose("Precise: On")
        // The same notification shown again in place: the agent logs each Notify; dunst still shows one.
        #expect(eventually { agent.log.components(separatedBy: "shows prompt").count == 3 }, "\(agent.log)")
        #expect(try desktop.displayed() == 1)
        let menu = try desktop.choose("Allow While Using App")
        #expect(menu.contains("#Precise: Off ("), "\(menu)")
        #expect(eventually { (try? authorization("com.ex.maps", daemon))?["status"] == .string("authorizedWhenInUse") })
        #expect(try authorization("com.ex.maps", daemon)?["accuracy"] == .string("reducedAccuracy"))
        withExtendedLifetime(maps) {}
    }

    @Test(
        "N3: a prompt answered by another agent is withdrawn and its dunst notification closes",
        .enabled(if: hasDesktop, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func withdrawnCloses() throws {
        let (daemon, desktop) = try Self.scene(dunst: true)
        let agent = try desktop.startAgent(socket: daemon.socketPath)
        let other = try daemon.connect()
        try other.send(VarlinkCall(method: "io.locd.Admin.Prompts", parameters: [:], more: true))
        let maps = try asking("com.ex.maps", daemon)
        #expect(desktop.waitForDisplayed(1))
        let prompt = try #require(try other.receive().parameters["prompt"])
        try daemon.connect().call("io.locd.Admin.AnswerPrompt", ["id": prompt["id"]!, "answer": .string("allowOnce")])
        #expect(desktop.waitForDisplayed(0), "\(agent.log)")
        #expect(!agent.log.contains("answered prompt"))
        #expect(try authorization("com.ex.maps", daemon)?["oneTime"] == .bool(true))
        withExtendedLifetime(maps) {}
    }

    @Test(
        "N4: a server without actions gets one notice naming locctl agent, each prompt says how to answer, and --terminal opens it",
        .enabled(if: hasDesktop, "needs dbus-daemon and python3-gi (.ci/install-deps --tests)")
    )
    func serverWithoutActions() throws {
        let (daemon, desktop) = try Self.scene(dunst: false)
        let terminal = try desktop.installTerminal()
        let server = try desktop.startServer(capabilities: ["body", "body-markup"])
        let agent = try desktop.startAgent(socket: daemon.socketPath, ["--terminal", "--terminal-command", terminal])
        let notice = try #require(server.waitFor { $0["notify"] != nil }, "\(agent.log)")
        #expect(notice["body"]?.stringValue?.contains("locctl agent") == true)
        #expect(notice["actions"]?.arrayValue?.isEmpty == true)
        #expect(agent.waitFor("locctl agent"))
        let maps = try asking("com.ex.maps", daemon)
        let shown = try #require(server.waitFor { $0["summary"]?.stringValue?.hasPrefix("Allow") == true })
        #expect(shown["summary"] == .string("Allow “com.ex.maps” to use your location?"))
        #expect(shown["body"]?.stringValue?.hasPrefix("Shows you on the map") == true)
        #expect(shown["body"]?.stringValue?.contains("locctl agent") == true)
        #expect(shown["actions"]?.arrayValue?.isEmpty == true)
        #expect(shown["hints"] == .array([.string("desktop-entry"), .string("resident"), .string("urgency")]))
        #expect(eventually { desktop.terminalCommands.contains("locctl agent --socket \(daemon.socketPath)") })
        #expect(server.objects.filter { $0["notify"] != nil }.count == 2)
        withExtendedLifetime(maps) {}
    }

    @Test(
        "N4: with no notification server the agent keeps no prompt stream open, and opens one when a server appears",
        .enabled(if: hasDesktop, "needs dbus-daemon and python3-gi (.ci/install-deps --tests)")
    )
    func noServer() throws {
        let (daemon, desktop) = try Self.scene(dunst: false)
        let agent = try desktop.startAgent(socket: daemon.socketPath)
        #expect(agent.waitFor("no notification server"), "\(agent.log)")
        #expect(try agents(daemon) == 0)
        _ = try desktop.startServer(capabilities: ["actions", "body"])
        #expect(eventually { (try? agents(daemon)) == 1 }, "\(agent.log)")
    }

    @Test(
        "N5: an app using location is one resident notification naming it, whose Settings opens locctl apps; it closes when the app quits",
        .enabled(if: hasDesktop, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func inUseNotification() throws {
        let (daemon, desktop) = try Self.scene(dunst: false)
        try desktop.write("share/applications/com.ex.maps.desktop", "[Desktop Entry]\nName=Maps\nIcon=find-location\n")
        let terminal = try desktop.installTerminal()
        try desktop.startDunst(showingUse: true)
        let agent = try desktop.startAgent(socket: daemon.socketPath, ["--terminal-command", terminal])
        #expect(eventually { (try? agents(daemon)) == 1 }, "\(agent.log)")
        #expect(try desktop.displayed() == 0)
        var maps: [VarlinkClient]? = try usingLocation("com.ex.maps", daemon)
        #expect(desktop.waitForDisplayed(1), "\(agent.log)")
        let menu = try desktop.choose("Settings")
        #expect(menu.contains("#Settings (“Maps” is using your location)"), "\(menu)")
        #expect(eventually { desktop.terminalCommands.contains("locctl apps --socket \(daemon.socketPath)") })
        // Resident: choosing Settings leaves it shown.
        #expect(try desktop.displayed() == 1)
        maps = nil
        #expect(desktop.waitForDisplayed(0), "\(agent.log)")
        withExtendedLifetime(maps) {}
    }

    @Test(
        "N5: where a tray runs, the agent's StatusNotifierItem is Active listing the app while it uses location and Passive after; without the tray it is a notification",
        .enabled(if: hasDesktop, "needs dbus-daemon and python3-gi (.ci/install-deps --tests)")
    )
    func inUseTray() throws {
        let (daemon, desktop) = try Self.scene(dunst: false)
        try desktop.write("share/applications/com.ex.maps.desktop", "[Desktop Entry]\nName=Maps\n")
        let terminal = try desktop.installTerminal()
        let server = try desktop.startServer(capabilities: ["actions", "body"])
        let tray = try desktop.startTray()
        let agent = try desktop.startAgent(socket: daemon.socketPath, ["--terminal-command", terminal])
        /// The item as the tray read it last.
        func item() -> JSONObject? { tray.objects.last { $0["status"] != nil } }
        let registered = try #require(tray.waitFor { $0["registered"] != nil }, "\(agent.log)")
        #expect(registered["registered"] == registered["sender"])
        #expect(eventually { item()?["status"] == .string("Passive") }, "\(tray.log)")
        #expect(item()?["category"] == .string("SystemServices") && item()?["id"] == .string("io.locd.Agent"))
        #expect(item()?["menu"] == .bool(false) && item()?["icon"] == .string("find-location"))
        var maps: [VarlinkClient]? = try usingLocation("com.ex.maps", daemon)
        #expect(eventually { item()?["status"] == .string("Active") }, "\(tray.log)\n\(agent.log)")
        #expect(
            item()?["tooltip"] == .array([.string("find-location"), .string("Location Services"), .string("Maps")])
        )
        tray.send("activate")
        #expect(eventually { desktop.terminalCommands.contains("locctl apps --socket \(daemon.socketPath)") })
        maps = nil
        #expect(eventually { item()?["status"] == .string("Passive") }, "\(tray.log)")
        #expect(item()?["tooltip"]?.arrayValue?.last == .string("No app is using your location"))
        // While the tray showed it, no notification did; with the tray gone, the notification does.
        #expect(!server.log.contains("using your location"))
        maps = try usingLocation("com.ex.maps", daemon)
        #expect(eventually { item()?["status"] == .string("Active") })
        tray.kill9()
        let shown = try #require(server.waitFor { $0["summary"] == .string("“Maps” is using your location") })
        #expect(shown["actions"] == .array([.string("settings"), .string("Settings")]))
        maps = nil
        #expect(server.waitFor { $0["close"] != nil && $0["close"] == shown["notify"] } != nil, "\(server.log)")
        withExtendedLifetime(maps) {}
    }

    @Test(
        "N1: a second locd-agent on the same session bus finds io.locd.Agent taken and exits 0 saying so",
        .enabled(if: hasDesktop, "needs dunst, Xvfb and dbus-daemon (.ci/install-deps --tests)")
    )
    func onePerSession() throws {
        let (daemon, desktop) = try Self.scene(dunst: false)
        _ = try desktop.startServer(capabilities: ["actions", "body"])
        let first = try desktop.startAgent(socket: daemon.socketPath)
        #expect(eventually { (try? agents(daemon)) == 1 }, "\(first.log)")
        let second = try desktop.run([DaemonProcess.executable("locd-agent"), "--socket", daemon.socketPath])
        #expect(second.status == 0)
        #expect(second.output.contains("io.locd.Agent is taken"), "\(second.output)")
        #expect(try first.process.isRunning && agents(daemon) == 1)
    }

    @Test(
        "N1, H7: each person's agent, run as that user on their own session bus, shows only that user's prompts",
        .enabled(if: hasDesktop && asRoot, "needs dunst, Xvfb, and root to run two users' processes")
    )
    func eachPersonTheirOwn() throws {
        let display = try XDisplay()
        let daemon = try DaemonProcess()
        try daemon.start()
        let alice = try Desktop(display: display, uid: Self.alice)
        let bob = try Desktop(display: display, uid: Self.bob)
        try alice.startDunst()
        try bob.startDunst()
        _ = try alice.startAgent(socket: daemon.socketPath)
        _ = try bob.startAgent(socket: daemon.socketPath)
        #expect(eventually { (try? agents(daemon)) == 2 })
        // Alice's Maps asks: only Alice's desktop shows it, and her answer is her app's.
        let person = try PersonApp(socket: daemon.socketPath, uid: Self.alice, appID: "com.ex.maps")
        #expect(alice.waitForDisplayed(1))
        #expect(try bob.displayed() == 0)
        _ = try alice.choose("Allow While Using App")
        #expect(
            eventually {
                (try? authorization("com.ex.maps", of: Self.alice, daemon))?["status"] == .string("authorizedWhenInUse")
            }
        )
        #expect(try authorization("com.ex.maps", of: Self.bob, daemon) == nil)
        #expect(try bob.displayed() == 0 && bob.menus.isEmpty)
        withExtendedLifetime(person) {}
    }
}

/// An app of another user: `Hello` and a whenInUse session from a Python client run as `uid` (its connection's peer
/// uid is the user's), held until dropped.
private final class PersonApp {
    private let client: ScriptProcess
    private let directory: TemporaryDirectory

    init(socket: String, uid: UInt32, appID: String) throws {
        directory = try TemporaryDirectory(prefix: "agent-app")
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            for method, parameters in [("io.locd.App.Hello", {"appId": sys.argv[2], "state": "foreground"}),
                                       ("io.locd.App.CreateSession", {"authorization": "whenInUse"})]:
                s.sendall(json.dumps({"method": method, "parameters": parameters}).encode() + b"\\0")
                reply = b""
                while b"\\0" not in reply: reply += s.recv(65536)
                print(reply.split(b"\\0")[0].decode(), flush=True)
            sys.stdin.read()
            """
        client = try ScriptProcess(
            [
                "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-c",
                script, socket, appID,
            ],
            logPath: directory.at("app.log")
        )
        guard client.waitFor({ $0["parameters"]?["session"] != nil }) != nil else {
            throw StandInFailure("the app of uid \(uid) did not start: \(client.log)")
        }
    }

    deinit {
        client.kill9()
        directory.remove()
    }
}
