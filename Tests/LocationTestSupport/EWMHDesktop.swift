import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A person's X11 desktop with an EWMH window manager: Xvfb and Openbox run as `uid` (an ordinary user, no passwd
/// entry needed) with a runtime directory of their own (mode 700), and real xterm windows opened on it as that user.
/// The test's own process (root) may connect to the display: Xvfb with no authority file lets every local client in.
package final class EWMHDesktop {
    /// Whether this machine has the programs: Xvfb, Openbox, xterm, xdotool and xprop (`.ci/install-deps --tests`).
    package static let isAvailable = [
        "/usr/bin/Xvfb", "/usr/bin/openbox", "/usr/bin/xterm", "/usr/bin/xdotool", "/usr/bin/xprop", "/usr/bin/setpriv",
    ].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    package let uid: UInt32
    package let directory: TemporaryDirectory
    /// The display's name, `:N`.
    package private(set) var display = ""
    private var processes: [ScriptProcess] = []

    /// Starts Xvfb on the first free display (`-displayfd`) and Openbox on it, and waits until Openbox manages it.
    /// `-noreset`: Xvfb otherwise resets when its last client leaves, and a client that comes meanwhile is refused.
    /// - Parameter windowManager: `false` leaves the display without one: a bare X server, as before a session's
    ///   window manager starts.
    package init(uid: UInt32, windowManager: Bool = true) throws {
        self.uid = uid
        directory = try TemporaryDirectory(prefix: "ewmh-desktop")
        chown(directory.path, uid, uid)
        chmod(directory.path, 0o700)
        let server = try start(
            ["/usr/bin/Xvfb", "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
            log: "xvfb.log"
        )
        var number: String?
        _ = eventually(timeout: 20, every: 0.02) {
            number = server.log.split(separator: "\n").first { !$0.isEmpty && $0.allSatisfy(\.isNumber) }.map(
                String.init
            )
            return number != nil || !server.process.isRunning
        }
        guard let number else { throw StandInFailure("Xvfb did not start: \(server.log)") }
        display = ":" + number
        guard
            eventually(
                timeout: 20,
                every: 0.02,
                {
                    (try? run(["/usr/bin/xprop", "-root", "-len", "0", "RESOURCE_MANAGER"]))?.status == 0
                        || !server.process.isRunning
                }
            ), server.process.isRunning
        else { throw StandInFailure("Xvfb did not serve \(display): \(server.log)") }
        guard windowManager else { return }
        let manager = try start(["/usr/bin/openbox"], log: "openbox.log")
        guard
            eventually(
                timeout: 20,
                every: 0.05,
                {
                    (try? run(["/usr/bin/xprop", "-root", "_NET_SUPPORTING_WM_CHECK"]))?.output.contains("window id")
                        == true
                        || !manager.process.isRunning
                }
            ), manager.process.isRunning
        else { throw StandInFailure("openbox did not start on \(display): \(manager.log) \(server.log)") }
    }

    deinit {
        for process in processes.reversed() { process.kill9() }
        directory.remove()
    }

    /// The person's environment: the display, and a home and runtime directory of the desktop's own.
    package var environment: [String: String] {
        ["DISPLAY": display, "HOME": directory.path, "XDG_RUNTIME_DIR": directory.path]
    }

    private var launcher: [String] { ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] }

    /// Starts `arguments` as the person, its output in `log` of the desktop's directory.
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

    /// Opens an xterm of X class `windowClass` as the person, and waits until its window is mapped: its process and
    /// window id (as xdotool prints it). It runs `command`, by default `cat`, which leaves when the terminal goes (a `sleep` would outlive it
    /// holding the descriptor by which Foundation learns that the xterm exited).
    package func openTerminal(
        class windowClass: String,
        running command: [String] = ["/bin/cat"]
    ) throws -> (process: ScriptProcess, window: String) {
        let terminal = try start(
            ["/usr/bin/xterm", "-class", windowClass, "-title", windowClass, "-e"] + command,
            log: "\(windowClass).log"
        )
        var window: String?
        _ = eventually(timeout: 20, every: 0.05) {
            let search = try? run(["/usr/bin/xdotool", "search", "--onlyvisible", "--class", "^\(windowClass)$"])
            window = search.flatMap { $0.status == 0 ? $0.output.split(separator: "\n").first.map(String.init) : nil }
            return window != nil || !terminal.process.isRunning
        }
        guard let window else { throw StandInFailure("xterm \(windowClass) did not map a window: \(terminal.log)") }
        return (terminal, window)
    }

    /// Runs xdotool as the person (`windowactivate --sync W`, `windowminimize --sync W`), and fails if it does.
    package func xdotool(_ arguments: String...) throws {
        let result = try run(["/usr/bin/xdotool"] + arguments)
        guard result.status == 0 else { throw StandInFailure("xdotool \(arguments) failed: \(result.output)") }
    }
}
