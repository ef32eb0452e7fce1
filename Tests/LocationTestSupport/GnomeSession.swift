import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A person's GNOME Shell 43 session, headless: `gnome-shell --headless --wayland --no-x11` in `dbus-run-session` as a
/// real account the test makes, with its own runtime directory (mode 700), a private bus standing in for the system
/// bus, and the project's extension (data/gnome-shell) enabled beside the tests' own (Fixtures/gnome-shell) before the
/// shell starts. The session bus lets the test's own process (root) in, so a source can read it from the test.
package final class GnomeSession {
    /// Whether this machine has GNOME Shell, gdbus, dbus-run-session and python3-gi's GTK 3 (the CI suite's).
    package static let isAvailable =
        [
            "/usr/bin/gnome-shell", "/usr/bin/gdbus", "/usr/bin/dbus-run-session", "/usr/bin/setpriv",
            "/usr/sbin/useradd",
        ].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/Gtk-3.0.typelib")

    package static let extensionUUID = "desktop-source@locd.io"
    package let account: TestAccount
    package let directory: TemporaryDirectory
    package var address: String { "unix:path=" + directory.at("bus") }
    private var session: ScriptProcess?
    private var processes: [ScriptProcess] = []

    /// Starts the session and waits until the project's extension answers and the overview is hidden.
    package init() throws {
        account = try TestAccount(prefix: "locdgs", uids: 61_100...61_199)
        directory = try TemporaryDirectory(prefix: "gnome-session")
        chmod(directory.path, 0o755)
        for folder in ["run", "home", "config", "cache", "share/gnome-shell/extensions"] {
            try FileManager.default.createDirectory(
                atPath: directory.at(folder),
                withIntermediateDirectories: true
            )
        }
        chmod(directory.at("run"), 0o700)
        let extensions = directory.at("share/gnome-shell/extensions")
        try FileManager.default.copyItem(
            atPath: Repository.root() + "/data/gnome-shell/" + Self.extensionUUID,
            toPath: extensions + "/" + Self.extensionUUID
        )
        try FileManager.default.copyItem(
            atPath: ScriptProcess.fixture("gnome-shell/test-driver@locd.io"),
            toPath: extensions + "/test-driver@locd.io"
        )
        _ = try directory.write("session.conf", Self.busConfiguration(address: "unix:path=" + directory.at("bus")))
        _ = try directory.write("session.sh", Self.script)
        let owned = try ChildProcess(["/bin/chown", "-R", "\(account.uid):\(account.uid)", directory.path])
        guard owned.status == 0 else { throw StandInFailure("chown failed: \(owned.output)") }
        session = try ScriptProcess(
            launcher + [
                "/usr/bin/dbus-run-session", "--config-file=" + directory.at("session.conf"), "--", "/bin/bash",
                directory.at("session.sh"),
            ],
            environment: environment,
            logPath: directory.at("session.log")
        )
        try waitUntilReady()
    }

    deinit {
        for process in processes.reversed() { process.kill9() }
        // Every process of the session's own account: the shell, its buses and what they started (dconf, the portals).
        // SIGKILL, since a child of the test runner may inherit SIGTERM ignored, and the shell may crash at SIGTERM.
        _ = try? ChildProcess(launcher + ["/bin/kill", "-KILL", "-1"])
        session?.kill9()
        account.remove()
        directory.remove()
    }

    private var launcher: [String] {
        ["/usr/bin/setpriv", "--reuid=\(account.uid)", "--regid=\(account.uid)", "--clear-groups"]
    }

    /// The person's environment in the session: the session bus, the display, and directories of the session's own.
    package var environment: [String: String] {
        [
            "HOME": directory.at("home"), "XDG_RUNTIME_DIR": directory.at("run"),
            "XDG_DATA_HOME": directory.at("share"),
            "XDG_CONFIG_HOME": directory.at("config"), "XDG_CACHE_HOME": directory.at("cache"),
            "DBUS_SESSION_BUS_ADDRESS": address, "WAYLAND_DISPLAY": "wayland-locd", "GDK_BACKEND": "wayland",
            "XDG_CURRENT_DESKTOP": "GNOME", "DISPLAY": "", "NO_AT_BRIDGE": "1",
        ]
    }

    /// Starts `arguments` as the person in the session, its output in `log` of the session's directory.
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

    /// Asks the tests' extension to `Activate` or `Minimize` the window of `appID`, until the shell has that window
    /// (a client's window reaches the shell a moment after the client shows it).
    package func drive(_ method: String, _ appID: String) throws {
        var output = ""
        let done = eventually(timeout: 20, every: 0.05) {
            let call = try? run([
                "/usr/bin/gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path",
                "/io/locd/TestDriver", "--method", "io.locd.TestDriver.\(method)", appID,
            ])
            output = call?.output ?? ""
            return call?.status == 0 && output.contains("true")
        }
        guard done else { throw StandInFailure("\(method) \(appID) failed: \(output)") }
    }

    private func waitUntilReady() throws {
        let ready = eventually(timeout: 60, every: 0.1) {
            guard session?.process.isRunning == true else { return true }
            let picture = try? run([
                "/usr/bin/gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path",
                "/io/locd/DesktopSource", "--method", "io.locd.DesktopSource1.GetPicture",
            ])
            guard picture?.status == 0 else { return false }
            let overview = try? run([
                "/usr/bin/gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path", "/org/gnome/Shell",
                "--method", "org.freedesktop.DBus.Properties.Get", "org.gnome.Shell", "OverviewActive",
            ])
            return overview?.output.contains("false") == true
        }
        guard ready, session?.process.isRunning == true else {
            throw StandInFailure("GNOME Shell did not start: \(session?.log ?? "")")
        }
    }

    package static func busConfiguration(address: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(address)</listen>
          <auth>EXTERNAL</auth>
          <standard_session_servicedirs/>
          <policy context="default">
            <allow user="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }

    /// The session's first program: the stand-in system bus, the extensions enabled, then the shell itself.
    private static let script = """
        set -u
        unset DISPLAY
        dbus-daemon --session --address="unix:path=$XDG_RUNTIME_DIR/system_bus_socket" --fork \\
            --print-pid > "$XDG_RUNTIME_DIR/system-bus.pid"
        export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/system_bus_socket"
        gsettings set org.gnome.shell disable-user-extensions false
        gsettings set org.gnome.shell enabled-extensions "['test-driver@locd.io', '\(extensionUUID)']"
        exec gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 --wayland-display=wayland-locd

        """
}
