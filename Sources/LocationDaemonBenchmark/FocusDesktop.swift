import Foundation
import LocationProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The focus scenario's desktop: a real sway, headless, run as an ordinary user (sway refuses root) with a runtime
/// directory of its own (mode 700) and a session bus of its own; real `foot` windows, each running a client of locd
/// whose app id is the window's `app_id`; and `locd-agent`, started with no arguments in that session.
///
/// The user is ``BenchAccount``'s: every process of it is started here with `setpriv` and a whole environment of the
/// benchmark's.
final class FocusDesktop {
    static let programs = [
        "/usr/bin/sway", "/usr/bin/foot", "/usr/bin/dbus-daemon", "/usr/bin/python3", "/usr/sbin/useradd",
        "/usr/sbin/userdel",
    ]

    let uid: UInt32
    let gid: UInt32

    let directory: String
    let runtime: String
    let appIDs: [String]
    private(set) var ipc: SwayIPC!
    private(set) var agent: ChildProcess!
    private var processes: [ChildProcess] = []
    private var busAddress = ""
    private var swaySocket = ""
    private var display = ""

    /// Why the scenario cannot run here, or nil: it needs root (to make and run the desktop's user), sway, foot, a bus
    /// daemon, python3 (the windows' clients) and locd-agent.
    static func unavailableReason(agent: String) -> String? {
        if getuid() != 0 { return "needs root, to run sway as an ordinary user (sway refuses root) with setpriv" }
        if let missing = (programs + [agent]).first(where: { !FileManager.default.isExecutableFile(atPath: $0) }) {
            return "no \(missing) (.ci/install-deps --tests installs sway, foot, dbus-daemon and python3; "
                + "make bench-build builds locd-agent)"
        }
        return nil
    }

    /// Starts the session bus and sway, opens one window per app id, and starts locd-agent against `locdSocket`.
    init(uid: UInt32, gid: UInt32, directory: String, appIDs: [String], locdSocket: String, agentPath: String) throws {
        self.uid = uid
        self.gid = gid
        self.directory = directory
        self.appIDs = appIDs
        runtime = directory + "/run"
        guard mkdir(directory, 0o711) == 0, chmod(directory, 0o711) == 0, mkdir(runtime, 0o700) == 0,
            chown(runtime, uid, gid) == 0
        else { throw BenchError.system("making the desktop's directories in \(directory)", errno) }
        try startBus()
        try startSway()
        for appID in appIDs { try openWindow(appID, locdSocket: locdSocket) }
        agent = try start("locd-agent", [agentPath], extra: ["LOCD_SOCKET": locdSocket])
    }

    deinit {
        for process in processes.reversed() { process.stop() }
    }

    private var environment: [String: String] {
        var variables = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": runtime, "XDG_RUNTIME_DIR": runtime,
            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
        ]
        if !busAddress.isEmpty { variables["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        if !swaySocket.isEmpty {
            variables.merge(["SWAYSOCK": swaySocket, "WAYLAND_DISPLAY": display, "XDG_CURRENT_DESKTOP": "sway"]) { $1 }
        }
        return variables
    }

    /// Starts `arguments` as the desktop's user with the session's environment (and `extra`).
    private func start(_ name: String, _ arguments: [String], extra: [String: String] = [:]) throws -> ChildProcess {
        let variables = environment.merging(extra) { $1 }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let process = try ChildProcess(
            name: name,
            ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "/usr/bin/env", "-i"]
                + variables + arguments,
            environment: [:],
            logPath: directory + "/\(name).log"
        )
        processes.append(process)
        return process
    }

    private func startBus() throws {
        let bus = try start(
            "session-bus",
            [
                "/usr/bin/dbus-daemon", "--session", "--nofork", "--address=unix:path=\(runtime)/bus",
                "--print-address=1",
            ]
        )
        try bus.waitForLog("unix:path=", timeout: 10)
        busAddress = "unix:path=\(runtime)/bus"
    }

    private func startSway() throws {
        let config = directory + "/sway.config"
        try "output HEADLESS-1 resolution 1280x800\nxwayland disable\ndefault_border none\nworkspace_layout tabbed\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o644)
        let sway = try start("sway", ["/usr/bin/sway", "-c", config])
        let deadline = Clock.now + 20
        while Clock.now < deadline, sway.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []
            if let socket = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }),
                let wayland = names.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") })
            {
                swaySocket = runtime + "/" + socket
                display = wayland
                ipc = try SwayIPC(path: swaySocket)
                return
            }
            usleep(20_000)
        }
        throw BenchError.failed("sway did not start in 20 s; its log:\n\(sway.logTail())")
    }

    /// A client of locd that says `Hello(appID, foreground)` and holds its connection while its window lives.
    private static let client = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
        s.sendall(json.dumps({"method": "\(AppMethod.hello.name)", "parameters": {"appId": sys.argv[2], "state": "foreground"}}).encode() + b"\\0")
        reply = b""
        while b"\\0" not in reply: reply += s.recv(65536)
        print(reply.split(b"\\0")[0].decode(), flush=True)
        sys.stdin.read()
        """

    /// A `foot` window whose `app_id` is `appID`, running the client; waits until sway shows it.
    private func openWindow(_ appID: String, locdSocket: String) throws {
        let window = try start(
            "foot-\(appID)",
            ["/usr/bin/foot", "--app-id=\(appID)", "--", "/usr/bin/python3", "-c", Self.client, locdSocket, appID]
        )
        let deadline = Clock.now + 20
        while Clock.now < deadline, window.isRunning {
            if try ipc.windows().appIDs.contains(appID) { return }
            usleep(20_000)
        }
        throw BenchError.failed("foot \(appID) did not map a window in 20 s; its log:\n\(window.logTail())")
    }

    /// Gives the window of `appID` the focus, as `swaymsg '[app_id="ID"] focus'` does.
    func focus(_ appID: String) throws {
        try ipc.command("[app_id=\"\(appID)\"] focus")
    }
}
