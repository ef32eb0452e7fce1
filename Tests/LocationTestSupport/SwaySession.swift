import Foundation
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A real sway, headless (no GPU: wlroots' pixman renderer, no input devices), run as an ordinary user with a runtime
/// directory of its own (mode 700), and real `foot` windows in it: the desktop whose focus locd-agent reads (N15).
/// Every workspace is tabbed, so that one window shows at a time and `focus` changes which.
package final class SwaySession {
    /// Whether this machine has sway, swaymsg and foot (`.ci/install-deps --tests`).
    package static let isAvailable = ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/foot"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    package let launcher: SessionLauncher
    package var uid: UInt32 { launcher.uid }
    package var directory: TemporaryDirectory { launcher.directory }
    /// `XDG_RUNTIME_DIR` of the session, where sway makes its sockets.
    package var runtime: String { launcher.runtime }
    /// sway's IPC socket (`SWAYSOCK`) and Wayland display (`WAYLAND_DISPLAY`).
    package private(set) var socket = ""
    package private(set) var display = ""

    /// Starts sway as `uid` and waits until its IPC socket and Wayland display are there.
    package init(uid: UInt32) throws {
        launcher = try SessionLauncher(uid: uid, prefix: "sway")
        let config = try launcher.directory.write(
            "config",
            "output HEADLESS-1 resolution 1280x800\nxwayland disable\ndefault_border none\nworkspace_layout tabbed\n"
        )
        chmod(config, 0o644)
        let sway = try start(["/usr/bin/sway", "-c", config], log: "sway.log")
        display = try launcher.waitForDisplay(of: sway, named: "sway")
        let runtime = launcher.runtime
        var ipc: String?
        _ = eventually(timeout: 20, every: 0.02) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            ipc = names.first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
            return ipc != nil || !sway.process.isRunning
        }
        guard let ipc else { throw StandInFailure("sway made no IPC socket: \(sway.log)") }
        socket = runtime + "/" + ipc
    }

    /// The session's environment as a program in it sees it: the runtime directory, sway's socket and display.
    package var environment: [String: String] {
        [
            "XDG_RUNTIME_DIR": runtime, "SWAYSOCK": socket, "WAYLAND_DISPLAY": display,
            "XDG_CURRENT_DESKTOP": "sway", "HOME": directory.path,
        ]
    }

    /// Starts `arguments` as the session's user with exactly the session's environment (and `PATH`).
    @discardableResult
    package func start(
        _ arguments: [String],
        log: String,
        environment extra: [String: String] = [:]
    ) throws
        -> ScriptProcess
    {
        try launcher.start(arguments, log: log, environment: (socket.isEmpty ? [:] : environment).merging(extra) { $1 })
    }

    /// Opens a `foot` window whose Wayland `app_id` is `appID`, running `command` (a shell's `cat` if none), and waits
    /// until sway shows it.
    @discardableResult
    package func openWindow(
        appID: String,
        running command: [String] = ["/bin/cat"],
        environment extra: [String: String] = [:]
    ) throws -> ScriptProcess {
        let window = try start(
            ["/usr/bin/foot", "--app-id=\(appID)", "--"] + command,
            log: "foot-\(appID).log",
            environment: extra
        )
        guard eventually(timeout: 20, every: 0.02, { windows().contains { $0.appID == appID } }) else {
            throw StandInFailure("foot \(appID) did not map a window: \(window.log)")
        }
        return window
    }

    /// Runs `swaymsg` with `arguments` as the session's user, to its end.
    package func message(_ arguments: [String]) throws {
        let run = try ChildProcess(launcher.asUser + ["/usr/bin/swaymsg", "-s", socket] + arguments)
        guard run.status == 0 else { throw StandInFailure("swaymsg \(arguments) failed: \(run.output)") }
    }

    /// Gives the window of `appID` the focus (and, tabbed, the screen).
    package func focus(_ appID: String) throws {
        try message(["[app_id=\"\(appID)\"] focus"])
        guard eventually(timeout: 20, every: 0.02, { windows().first { $0.focused }?.appID == appID }) else {
            throw StandInFailure("sway did not focus \(appID)")
        }
    }

    /// The windows sway has: app id, pid and focus.
    package func windows() -> [(appID: String?, pid: Int32?, focused: Bool)] {
        guard
            let run = try? ChildProcess(launcher.asUser + ["/usr/bin/swaymsg", "-s", socket, "-r", "-t", "get_tree"]),
            let tree = JSONValue.parse(Array(run.output.utf8))
        else { return [] }
        var found: [(appID: String?, pid: Int32?, focused: Bool)] = []
        func walk(_ node: JSONValue) {
            let children = (node["nodes"]?.arrayValue ?? []) + (node["floating_nodes"]?.arrayValue ?? [])
            if children.isEmpty, let pid = node["pid"]?.intValue {
                found.append((node["app_id"]?.stringValue, Int32(pid), node["focused"]?.boolValue ?? false))
            }
            children.forEach(walk)
        }
        walk(tree)
        return found
    }
}
