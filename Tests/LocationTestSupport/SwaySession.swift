import Foundation
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A real sway, headless (no GPU: wlroots' pixman renderer, no input devices), run as an ordinary user with a runtime
/// directory of its own (mode 700), and real `foot` windows in it: the desktop whose focus locd-agent reads (N7).
/// Every workspace is tabbed, so that one window shows at a time and `focus` changes which.
package final class SwaySession {
    /// Whether this machine has sway, swaymsg and foot (`.ci/install-deps --tests`).
    package static let isAvailable = ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/foot"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    package let uid: UInt32
    package let directory: TemporaryDirectory
    /// `XDG_RUNTIME_DIR` of the session, where sway makes its sockets.
    package let runtime: String
    /// sway's IPC socket (`SWAYSOCK`) and Wayland display (`WAYLAND_DISPLAY`).
    package private(set) var socket = ""
    package private(set) var display = ""
    private var processes: [ScriptProcess] = []

    /// Starts sway as `uid` and waits until its IPC socket and Wayland display are there.
    package init(uid: UInt32) throws {
        self.uid = uid
        directory = try TemporaryDirectory(prefix: "sway")
        chown(directory.path, uid, uid)
        chmod(directory.path, 0o755)
        runtime = directory.at("run")
        mkdir(runtime, 0o700)
        chown(runtime, uid, uid)
        let config = try directory.write(
            "config",
            "output HEADLESS-1 resolution 1280x800\nxwayland disable\ndefault_border none\nworkspace_layout tabbed\n"
        )
        chmod(config, 0o644)
        let sway = try start(["/usr/bin/sway", "-c", config], log: "sway.log")
        var found: (String, String)?
        _ = eventually(timeout: 20, every: 0.02) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            if let ipc = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }),
                let wayland = names.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") })
            {
                found = (runtime + "/" + ipc, wayland)
            }
            return found != nil || !sway.process.isRunning
        }
        guard let found else { throw StandInFailure("sway did not start: \(sway.log)") }
        (socket, display) = found
    }

    deinit {
        for process in processes.reversed() { process.kill9() }
        directory.remove()
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
        var variables = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": runtime]
        if !socket.isEmpty { variables.merge(environment) { $1 } }
        variables.merge(["WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]) { $1 }
        variables.merge(extra) { $1 }
        let env = ["/usr/bin/env", "-i"] + variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let launcher =
            getuid() == uid ? [] : ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
        let process = try ScriptProcess(launcher + env + arguments, logPath: directory.at(log))
        processes.append(process)
        return process
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
        let launcher =
            getuid() == uid ? [] : ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
        let run = try ChildProcess(launcher + ["/usr/bin/swaymsg", "-s", socket] + arguments)
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
        let launcher =
            getuid() == uid ? [] : ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
        guard let run = try? ChildProcess(launcher + ["/usr/bin/swaymsg", "-s", socket, "-r", "-t", "get_tree"]),
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
