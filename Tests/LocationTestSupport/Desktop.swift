import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An X display of the test's own (Xvfb), which every desktop of a test shares: dunst draws there.
package final class XDisplay {
    package let name: String
    private let server: ScriptProcess
    private let directory: TemporaryDirectory

    /// Starts Xvfb on the first free display, which it names on its standard output (`-displayfd`).
    package init() throws {
        directory = try TemporaryDirectory(prefix: "agent-x")
        let server = try ScriptProcess(
            ["/usr/bin/Xvfb", "-displayfd", "1", "-screen", "0", "1024x600x24", "-nolisten", "tcp"],
            logPath: directory.at("xvfb.log")
        )
        self.server = server
        var number: String?
        _ = eventually(timeout: 20, every: 0.02) {
            number = server.log.split(separator: "\n").first { !$0.isEmpty && $0.allSatisfy(\.isNumber) }.map(
                String.init
            )
            return number != nil || !server.process.isRunning
        }
        guard let number else { throw StandInFailure("Xvfb did not start: \(server.log)") }
        name = ":" + number
    }

    deinit {
        server.kill9()
        directory.remove()
    }

    /// Whether this machine can show a menu on the display and answer it from the keyboard: dmenu (suckless-tools),
    /// xdotool, and ImageMagick's `import` for the screenshot (`.ci/install-deps --tests`).
    package static let hasMenuTools = ["/usr/bin/dmenu", "/usr/bin/xdotool", "/usr/bin/import"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// A screenshot of the whole display, as a PNG at `path` (ImageMagick's `import`).
    package func screenshot(to path: String) throws {
        let shot = try ChildProcess(["/usr/bin/import", "-window", "root", "-display", name, path])
        guard shot.status == 0 else { throw StandInFailure("import failed: \(shot.output)") }
    }

    /// How many colours the rectangle of the display at `x`, `y` of `width` by `height` pixels has: 1 while nothing is
    /// drawn there, more once text is.
    package func colours(x: Int, y: Int, width: Int, height: Int) throws -> Int {
        let count = try ChildProcess([
            "/usr/bin/import", "-window", "root", "-display", name, "-crop", "\(width)x\(height)+\(x)+\(y)",
            "-format", "%k", "info:",
        ])
        guard count.status == 0, let colours = Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw StandInFailure("import failed: \(count.output)")
        }
        return colours
    }

    /// Types `text` on the display's keyboard, then Return (xdotool's XTEST events, as keys a person presses).
    package func type(_ text: String) throws {
        for arguments in [["type", "--delay", "20", text], ["key", "Return"]] {
            let keys = try ChildProcess(["/usr/bin/xdotool"] + arguments, environment: ["DISPLAY": name])
            guard keys.status == 0 else { throw StandInFailure("xdotool \(arguments[0]) failed: \(keys.output)") }
        }
    }

    /// Whether a window of the X class `windowClass` is on the display (xdotool).
    package func hasWindow(ofClass windowClass: String) -> Bool {
        let search = try? ChildProcess(
            ["/usr/bin/xdotool", "search", "--onlyvisible", "--class", windowClass],
            environment: ["DISPLAY": name]
        )
        return search?.status == 0
    }
}

/// One person's graphical session: a session bus of its own (dbus-daemon), a notification server on it (dunst on
/// the shared display, or a stand-in without actions), and locd-agent, all run as `uid` through `setpriv` (or as the
/// test's own user). Shared by LocationAgentTests and GeoClueTests, whose GeoClue clients' prompts it answers too.
package final class Desktop {
    /// Whether this machine has what a desktop needs: dunst, dunstctl, Xvfb and dbus-daemon
    /// (`.ci/install-deps --tests`).
    package static let isAvailable = ["/usr/bin/dunst", "/usr/bin/dunstctl", "/usr/bin/Xvfb", "/usr/bin/dbus-daemon"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    package let uid: UInt32?
    package let display: XDisplay
    package let directory: TemporaryDirectory
    package let address: String
    private var processes: [ScriptProcess] = []
    /// The pid of the bus of a person of another uid, whose user namespace their processes join.
    private var namespaceHolder: Int32?

    /// - Parameter services: bus name → executable that D-Bus activation starts on the person's bus (the permission
    ///   store, dconf), as the person, when something first calls the name; none by default.
    package init(display: XDisplay, uid: UInt32? = nil, services: [String: String] = [:]) throws {
        self.uid = uid
        self.display = display
        directory = try TemporaryDirectory(prefix: "agent-desktop")
        if let uid { chown(directory.path, uid, uid) }
        address = "unix:path=" + directory.at("bus")
        // A session bus that starts only `services`: the notification server is the one the test starts, never one
        // D-Bus activation would find installed (dunst's own activation file).
        for (name, executable) in services {
            try write("services/\(name).service", "[D-BUS Service]\nName=\(name)\nExec=\(executable)\n")
        }
        try write(
            "session.conf",
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
            \(services.isEmpty ? "" : "  <servicedir>\(directory.at("services"))</servicedir>")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        )
        let daemon = [
            "/usr/bin/dbus-daemon", "--config-file=" + directory.at("session.conf"), "--nofork", "--print-address=1",
        ]
        // dbus-daemon refuses a peer whose uid has no passwd entry (it looks up its groups), and the test users have
        // none: the person's bus runs in a user namespace of the person's own, where their uid is 0, and their
        // other processes join it (``launcher``). To the kernel, and so to locd's peer credentials, they are `uid`.
        let bus = try start(
            uid == nil ? daemon : ["/usr/bin/unshare", "--user", "--map-root-user"] + daemon,
            log: "bus.log"
        )
        if uid != nil { namespaceHolder = bus.process.processIdentifier }
        guard eventually(timeout: 20, every: 0.02, { bus.log.contains("unix:path=") || !bus.process.isRunning }),
            bus.log.contains("unix:path=")
        else { throw StandInFailure("dbus-daemon did not start: \(bus.log)") }
    }

    deinit {
        // What the person's bus started (dconf-service outlives its bus) is in the person's user namespace too.
        let namespace = namespaceHolder.flatMap { Self.userNamespace(of: $0) }
        for process in processes.reversed() { process.kill9() }
        if let namespace {
            let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
            for pid in pids where Self.userNamespace(of: pid) == namespace { kill(pid, SIGKILL) }
        }
        directory.remove()
    }

    /// The user namespace process `pid` is in (`/proc/PID/ns/user`), `nil` once it is gone.
    private static func userNamespace(of pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/user")
    }

    /// The words that run a program as this person: as `uid`, and once the bus runs, in its user namespace.
    private var launcher: [String] {
        guard let uid else { return [] }
        if let namespaceHolder { return ["/usr/bin/nsenter", "--user", "--target", "\(namespaceHolder)"] }
        return ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
    }

    /// The person's environment: the session bus, the display, a home and the XDG data directories in the session's
    /// directory (`share/applications` holds the apps' `.desktop` files).
    package var environment: [String: String] {
        [
            "DBUS_SESSION_BUS_ADDRESS": address, "DISPLAY": display.name, "HOME": directory.path,
            "XDG_DATA_HOME": directory.at("share"), "XDG_DATA_DIRS": directory.at("system-share"),
            "XDG_RUNTIME_DIR": directory.path, "LOCD_SOCKET": "",
        ]
    }

    /// Starts `arguments` as the person, its output in `log` of the session's directory.
    @discardableResult
    package func start(_ arguments: [String], log: String) throws -> ScriptProcess {
        let process = try ScriptProcess(launcher + arguments, environment: environment, logPath: directory.at(log))
        processes.append(process)
        return process
    }

    /// Runs `arguments` as the person to their end.
    package func run(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(launcher + arguments, environment: environment)
    }

    /// Writes a file of the session's directory, readable by the person.
    package func write(_ relativePath: String, _ text: String, executable: Bool = false) throws {
        let path = try directory.write(relativePath, text)
        chmod(path, executable ? 0o755 : 0o644)
        if let uid {
            var directory = (path as NSString).deletingLastPathComponent
            while directory.hasPrefix(self.directory.path) {
                chown(directory, uid, uid)
                directory = (directory as NSString).deletingLastPathComponent
            }
        }
    }

    /// Starts dunst, with `Fixtures/pick.sh` as its menu, and waits until it serves.
    /// - Parameter showingUse: whether it shows the agent's low-urgency notification of the apps using location
    ///   (N5). The tests of prompts leave it out: an app allowed there goes on to use location, and the prompts' counts
    ///   of notifications shown are then the prompts' own.
    package func startDunst(showingUse: Bool = false) throws {
        try write(
            "pick.sh",
            try String(contentsOfFile: ScriptProcess.fixture("pick.sh"), encoding: .utf8),
            executable: true
        )
        try write("want", "")
        try write(
            "dunstrc",
            """
            [global]
                dmenu = \(directory.at("pick.sh"))
                font = DejaVu Sans 12
                width = 560
                origin = top-right
                offset = 16x16
                padding = 12
                horizontal_padding = 14
                frame_width = 2
                icon_position = left
                min_icon_size = 48
                max_icon_size = 64
            [urgency_critical]
                background = "#f6f5f4"
                foreground = "#1e1e1e"
                frame_color = "#3d8fd1"
                timeout = 0
            [urgency_low]
                timeout = 0

            """ + (showingUse ? "" : "[in_use]\n    msg_urgency = low\n    skip_display = true\n")
        )
        // dunst with the system's data directories, as in a real session: GdkPixbuf finds an icon file's type in
        // shared-mime-info's database there (the session's own XDG_DATA_DIRS keeps the system's apps from the agent).
        try start(
            [
                "/usr/bin/env", "XDG_DATA_DIRS=/usr/local/share:/usr/share", "/usr/bin/dunst", "-config",
                directory.at("dunstrc"),
            ],
            log: "dunst.log"
        )
        guard eventually(timeout: 20, every: 0.05, { (try? displayed()) != nil }) else {
            throw StandInFailure(
                "dunst did not start: \((try? String(contentsOfFile: directory.at("dunst.log"), encoding: .utf8)) ?? "")"
            )
        }
    }

    /// Starts the stand-in notification server with these capabilities, and waits until it owns the name.
    package func startServer(capabilities: [String]) throws -> ScriptProcess {
        let script = ScriptProcess.fixture("notification_server.py")
        let server = try start(["/usr/bin/python3", script, capabilities.joined(separator: ",")], log: "server.log")
        guard server.waitFor({ $0["ready"] != nil }) != nil else {
            throw StandInFailure("the stand-in notification server did not start: \(server.log)")
        }
        return server
    }

    /// Starts the stand-in tray (`Fixtures/tray_watcher.py`), and waits until it owns the name.
    package func startTray() throws -> ScriptProcess {
        let tray = try start(["/usr/bin/python3", ScriptProcess.fixture("tray_watcher.py")], log: "tray.log")
        guard tray.waitFor({ $0["ready"] != nil }) != nil else {
            throw StandInFailure("the stand-in tray did not start: \(tray.log)")
        }
        return tray
    }

    /// Copies `Fixtures/terminal.sh`, the stand-in terminal, to the session's directory; its path there.
    package func installTerminal() throws -> String {
        try write(
            "terminal.sh",
            try String(contentsOfFile: ScriptProcess.fixture("terminal.sh"), encoding: .utf8),
            executable: true
        )
        return directory.at("terminal.sh")
    }

    /// What the stand-in terminal was asked to run so far.
    package var terminalCommands: String {
        (try? String(contentsOfFile: directory.at("terminal"), encoding: .utf8)) ?? ""
    }

    /// How many notifications dunst shows now; `nil` when dunstctl cannot ask it.
    package func displayed() throws -> Int? {
        let count = try run(["/usr/bin/dunstctl", "count", "displayed"])
        guard count.status == 0 else { return nil }
        return Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Whether dunst comes to show `count` notifications within 20 s.
    package func waitForDisplayed(_ count: Int) -> Bool {
        eventually(timeout: 20, every: 0.05) { (try? displayed()) == count }
    }

    /// The menus dunst gave the picker so far.
    package var menus: [String] {
        let text = (try? String(contentsOfFile: directory.at("menus"), encoding: .utf8)) ?? ""
        return text.components(separatedBy: "---\n").filter { !$0.isEmpty }
    }

    /// Chooses the action labelled `label` of the notification shown, as the person would in dunst's context menu
    /// (`dunstctl context`), and returns the menu dunst offered.
    package func choose(_ label: String) throws -> String {
        let before = menus.count
        try write("want", label)
        let context = try run(["/usr/bin/dunstctl", "context"])
        guard context.status == 0 else { throw StandInFailure("dunstctl context failed: \(context.output)") }
        guard eventually(timeout: 20, every: 0.02, { menus.count > before }) else {
            throw StandInFailure("dunst opened no menu")
        }
        return menus[before]
    }

    /// Opens dunst's context menu (`dunstctl context`) in dmenu, drawn at the bottom of the display for the person to
    /// answer from the keyboard (``XDisplay/type(_:)``), and waits until its window is there; the menu dunst offered.
    package func openMenuOnDisplay() throws -> String {
        let before = menus.count
        try write("menu", "/usr/bin/dmenu -b -l 6 -i -fn 'DejaVu Sans-13' -p 'Location Services'")
        try start(["/usr/bin/dunstctl", "context"], log: "context.log")
        guard eventually(timeout: 20, every: 0.05, { menus.count > before && display.hasWindow(ofClass: "dmenu") })
        else { throw StandInFailure("dunst opened no menu on the display") }
        return menus[before]
    }

    /// Starts locd-agent on locd's socket at `socket`, with `arguments` after.
    package func startAgent(
        socket: String,
        _ arguments: [String] = [],
        log: String = "agent.log"
    ) throws -> ScriptProcess {
        try start([DaemonProcess.executable("locd-agent"), "--socket", socket, "--verbose"] + arguments, log: log)
    }
}
