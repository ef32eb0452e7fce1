import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A person's KDE Plasma session's window manager, KWin 5.27, headless: `kwin_wayland --virtual` in `dbus-run-session`
/// as a real account the test makes, with its own runtime directory (mode 700) and the project's KWin script
/// (data/kwin) installed under the session's `XDG_DATA_DIRS`. The binary is a copy of the installed one: the copy drops
/// its `cap_sys_resource` file capability, which a test machine's container cannot grant. The session bus lets the
/// test's own process (root) in, so a source can read it from the test.
package final class KWinSession {
    /// Whether this machine has KWin, gdbus, dbus-run-session and python3-gi's GTK 3 (the CI suite's).
    package static let isAvailable =
        [
            "/usr/bin/kwin_wayland", "/usr/bin/gdbus", "/usr/bin/dbus-run-session", "/usr/bin/setpriv",
            "/usr/sbin/useradd",
        ].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/Gtk-3.0.typelib")

    package let account: TestAccount
    package let directory: TemporaryDirectory
    package var address: String { "unix:path=" + directory.at("bus") }
    /// Where the session finds the project's script (`locd/kwin/desktop-source.js` under its `XDG_DATA_DIRS`).
    package var scriptPath: String { directory.at("share/locd/kwin/desktop-source.js") }
    private var session: ScriptProcess?
    private var processes: [ScriptProcess] = []
    private var scripts = 0

    /// Starts the session and waits until KWin's scripting answers on the session bus; with `lockScreen`, KWin's screen
    /// locker runs too (`org.freedesktop.ScreenSaver`), which `lock()` starts.
    package init(lockScreen: Bool = false) throws {
        account = try TestAccount(prefix: "locdkw", uids: 61_200...61_299)
        directory = try TemporaryDirectory(prefix: "kwin-session")
        chmod(directory.path, 0o755)
        for folder in ["run", "home", "config", "cache", "share/locd/kwin", "bin"] {
            try FileManager.default.createDirectory(atPath: directory.at(folder), withIntermediateDirectories: true)
        }
        chmod(directory.at("run"), 0o700)
        try FileManager.default.copyItem(atPath: Repository.root() + "/data/kwin/desktop-source.js", toPath: scriptPath)
        // A copy of the bytes alone: no file capability comes with it.
        let binary = try Data(contentsOf: URL(fileURLWithPath: "/usr/bin/kwin_wayland"))
        try binary.write(to: URL(fileURLWithPath: directory.at("bin/kwin_wayland")))
        chmod(directory.at("bin/kwin_wayland"), 0o755)
        _ = try directory.write("session.conf", GnomeSession.busConfiguration(address: address))
        let owned = try ChildProcess(["/bin/chown", "-R", "\(account.uid):\(account.uid)", directory.path])
        guard owned.status == 0 else { throw StandInFailure("chown failed: \(owned.output)") }
        session = try ScriptProcess(
            launcher + [
                "/usr/bin/dbus-run-session", "--config-file=" + directory.at("session.conf"), "--",
                directory.at("bin/kwin_wayland"), "--virtual", "--width", "1280", "--height", "800", "--socket",
                "wayland-locd", "--no-global-shortcuts", "--no-kactivities",
            ] + (lockScreen ? [] : ["--no-lockscreen"]),
            environment: environment.merging(["KWIN_COMPOSE": "Q"]) { $1 },
            logPath: directory.at("session.log")
        )
        let ready = eventually(timeout: 30, every: 0.05) {
            guard session?.process.isRunning == true else { return true }
            let answer = try? run([
                "/usr/bin/gdbus", "introspect", "--session", "--dest", "org.kde.KWin", "--object-path", "/Scripting",
            ])
            return answer?.status == 0
        }
        guard ready, session?.process.isRunning == true else {
            throw StandInFailure("KWin did not start: \(session?.log ?? "")")
        }
    }

    deinit {
        for process in processes.reversed() { process.kill9() }
        // Every process of the session's own account: KWin, its bus and what they started.
        _ = try? ChildProcess(launcher + ["/bin/kill", "-KILL", "-1"])
        session?.kill9()
        account.remove()
        directory.remove()
    }

    /// What KWin wrote so far.
    package var log: String { session?.log ?? "" }

    private var launcher: [String] {
        ["/usr/bin/setpriv", "--reuid=\(account.uid)", "--regid=\(account.uid)", "--clear-groups"]
    }

    /// The person's environment in the session: the session bus, the display, and directories of the session's own.
    package var environment: [String: String] {
        [
            "HOME": directory.at("home"), "XDG_RUNTIME_DIR": directory.at("run"),
            "XDG_DATA_DIRS": directory.at("share") + ":/usr/local/share:/usr/share",
            "XDG_CONFIG_HOME": directory.at("config"), "XDG_CACHE_HOME": directory.at("cache"),
            "DBUS_SESSION_BUS_ADDRESS": address, "WAYLAND_DISPLAY": "wayland-locd", "GDK_BACKEND": "wayland",
            "XDG_CURRENT_DESKTOP": "KDE", "DISPLAY": "", "NO_AT_BRIDGE": "1",
        ]
    }

    /// Starts `arguments` as the person in the session, with `extra` variables beside the session's, its output in
    /// `log` of the session's directory.
    @discardableResult
    package func start(
        _ arguments: [String],
        log: String,
        environment extra: [String: String] = [:]
    ) throws
        -> ScriptProcess
    {
        let process = try ScriptProcess(
            launcher + arguments,
            environment: environment.merging(extra) { $1 },
            logPath: directory.at(log)
        )
        processes.append(process)
        return process
    }

    /// Runs `arguments` as the person to their end.
    package func run(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(launcher + arguments, environment: environment)
    }

    /// Opens a GTK 3 window of the application `appID` (Fixtures/gtk_window.py), and waits until it is shown.
    package func openWindow(_ appID: String) throws -> ScriptProcess {
        let window = try start(
            ["/usr/bin/python3", ScriptProcess.fixture("gtk_window.py"), appID],
            log: appID + ".log"
        )
        guard window.waitFor("shown") else {
            throw StandInFailure("the window of \(appID) did not show: \(window.log)")
        }
        return window
    }

    /// Activates the window whose resource class is `appID`, as a click would: a one-shot KWin script.
    package func activate(_ appID: String) throws {
        try runScript("if (String(w.resourceClass) == \"\(appID)\") { workspace.activeClient = w; }")
    }

    /// Minimises the window whose resource class is `appID`.
    package func minimize(_ appID: String) throws {
        try runScript("if (String(w.resourceClass) == \"\(appID)\") { w.minimized = true; }")
    }

    /// Whether KWin has a script loaded as `plugin`; `nil` when KWin does not answer.
    package func scriptLoaded(_ plugin: String) -> Bool? {
        guard let answer = try? gdbus("/Scripting", "org.kde.kwin.Scripting.isScriptLoaded", [plugin]),
            answer.status == 0
        else { return nil }
        return answer.output.contains("true")
    }

    /// Locks the screen, as a person's shortcut would (KWin's `org.freedesktop.ScreenSaver.Lock`).
    package func lock() throws {
        let locked = try run([
            "/usr/bin/gdbus", "call", "--session", "--dest", "org.freedesktop.ScreenSaver", "--object-path",
            "/ScreenSaver", "--method", "org.freedesktop.ScreenSaver.Lock",
        ])
        guard locked.status == 0 else { throw StandInFailure("Lock failed: \(locked.output)") }
    }

    /// Loads, runs and unloads a one-shot script that runs `body` for each window `w`.
    private func runScript(_ body: String) throws {
        scripts += 1
        let plugin = "locd-test-\(scripts)"
        let file = try directory.write(
            "\(plugin).js",
            "var all = workspace.clientList();\nfor (var i = 0; i < all.length; i++) { var w = all[i]; \(body) }\n"
        )
        chmod(file, 0o644)
        let loaded = try gdbus("/Scripting", "org.kde.kwin.Scripting.loadScript", [file, plugin])
        let id = loaded.output.filter(\.isNumber)
        guard loaded.status == 0, !id.isEmpty else { throw StandInFailure("loadScript failed: \(loaded.output)") }
        let ran = try gdbus("/\(id)", "org.kde.kwin.Script.run", [])
        _ = try gdbus("/Scripting", "org.kde.kwin.Scripting.unloadScript", [plugin])
        guard ran.status == 0 else { throw StandInFailure("the script did not run: \(ran.output)") }
    }

    private func gdbus(_ path: String, _ method: String, _ arguments: [String]) throws -> ChildProcess {
        try run(
            [
                "/usr/bin/gdbus", "call", "--session", "--dest", "org.kde.KWin", "--object-path", path, "--method",
                method,
            ]
                + arguments
        )
    }
}
