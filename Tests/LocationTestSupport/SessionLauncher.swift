import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a headless Wayland compositor of an ordinary user and its clients share: a directory of the session's own, a
/// runtime directory in it (mode 700, as `XDG_RUNTIME_DIR` must be), and the processes started as the user with exactly
/// the session's environment, killed when the session ends.
package final class SessionLauncher {
    package let uid: UInt32
    package let directory: TemporaryDirectory
    /// `XDG_RUNTIME_DIR` of the session, where the compositor makes its sockets.
    package let runtime: String
    private var processes: [ScriptProcess] = []

    package init(uid: UInt32, prefix: String) throws {
        self.uid = uid
        directory = try TemporaryDirectory(prefix: prefix)
        chown(directory.path, uid, uid)
        chmod(directory.path, 0o755)
        runtime = directory.at("run")
        mkdir(runtime, 0o700)
        chown(runtime, uid, uid)
    }

    deinit {
        for process in processes.reversed() { process.kill9() }
        directory.remove()
    }

    /// `setpriv` as the session's user, or nothing if the tests already run as that user.
    package var asUser: [String] {
        getuid() == uid ? [] : ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
    }

    /// Starts `arguments` as the session's user with `environment` (and `PATH`, `HOME`, the runtime directory and
    /// wlroots' headless settings: no GPU, no input devices) and nothing else.
    package func start(_ arguments: [String], log: String, environment: [String: String]) throws -> ScriptProcess {
        var variables = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": runtime]
        variables.merge(["WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"]) { $1 }
        variables.merge(environment) { $1 }
        let env = ["/usr/bin/env", "-i"] + variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let process = try ScriptProcess(asUser + env + arguments, logPath: directory.at(log))
        processes.append(process)
        return process
    }

    /// Runs `arguments` as the session's user with `environment`, to its end.
    package func run(_ arguments: [String], environment: [String: String]) throws -> ChildProcess {
        let env = ["/usr/bin/env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try ChildProcess(asUser + env + arguments)
    }

    /// Waits until the compositor's Wayland display is in the runtime directory (or `compositor` ended) and names it.
    package func waitForDisplay(of compositor: ScriptProcess, named: String) throws -> String {
        var display: String?
        _ = eventually(timeout: 20, every: 0.02) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            display = names.first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            return display != nil || !compositor.process.isRunning
        }
        guard let display else { throw StandInFailure("\(named) did not start: \(compositor.log)") }
        return display
    }
}
