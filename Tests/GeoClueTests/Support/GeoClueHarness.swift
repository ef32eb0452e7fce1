import Foundation
import LocationTestSupport

/// A private system bus (`dbus-daemon` with the project's own configuration), the real `locd` serving a fixed
/// point in Berlin, and the real `locd-geoclue` between them; clients are run against the bus by the tests.
///
/// Each step waits for what shows the one before it is ready (the bus's address line, an answer from
/// `locctl status`, locd-geoclue's "serving" line), never for a fixed time.
final class GeoClueHarness {
    static let latitude = 52.52
    static let longitude = 13.405
    /// The app ids the tests use, each with a manifest that lets any process of the test's user be it: locd checks
    /// it against the client's process, which locd-geoclue speaks for (SEMANTICS I9).
    static let apps = [
        "geoclue-where-am-i", "gammastep", "test.allowed", "test.city", "test.denied", "test.unanswered",
        "test.holder", "test.deleted", "test.revoked", "redshift", "test.simple", "xdg-desktop-portal",
    ]

    /// The uid of an ordinary desktop user (`nobody`), whom the manifests also name: ``python(_:asUID:timeout:)``.
    static let ordinaryUID: UInt32 = 65534
    /// Another user (`www-data`, which every Debian has: dbus-daemon turns away a uid the password database does not
    /// know), whom the manifests name too: a user beside ``ordinaryUID`` that one user's programs must not lock out.
    static let otherUID: UInt32 = 33

    private let temporary: TemporaryDirectory
    var directory: String { temporary.path }
    let busAddress: String
    let socket: String
    private(set) var bus: ScriptProcess?
    private(set) var locd: ScriptProcess?
    private(set) var bridge: ScriptProcess?

    /// Apps whose manifests allow one executable only: `test.python` the one python3 really is, which runs the
    /// test clients, and `test.sleeper` `/usr/bin/sleep`, which runs none of them.
    static let executableApps = ["test.python": realPath("/usr/bin/python3"), "test.sleeper": "/usr/bin/sleep"]

    /// - Parameters:
    ///   - promptTimeout: locd's `prompt-timeout`.
    ///   - agentWait: locd's `agent-wait` (P14); by default long, so that an agent a test starts after the client's
    ///     `Start` is not raced by it on a loaded machine.
    ///   - provider: the lines of locd's `[provider]` table; by default a fixed point in Berlin.
    ///   - brokered: whether locd.toml's `brokers` names the locd-geoclue the harness runs (SEMANTICS I8).
    ///   - limits: lines of locd's `[limits]` table beside its `idle-timeout`.
    ///   - unknownApps: locd's `unknown-brokered-apps` (I11): `deny` refuses an app id with no manifest at once.
    ///   - geoClueConfiguration: the text of a `geoclue.conf` locd-geoclue is given with `--geoclue-config` (G34).
    ///   - subordinateUIDs: the text of the file locd-geoclue is given with `--subordinate-uids` (H9); by default
    ///     none (`""`): a test never reads the machine's `/etc/subuid`, and neither does its locd.
    ///   - importedGeoClue: the text of a `geoclue.conf` locd's `[geoclue] config` names (G30, G31), written in the
    ///     harness's own directory.
    ///   - manifests: more manifests for locd's apps directory, file name stem → TOML text.
    ///   - agentExecutables: locd-geoclue's `--agent-executable` options, agent id → program (G34).
    ///   - backgroundGrace: locd's `background-grace` (L2).
    init(
        promptTimeout: Double = 30,
        agentWait: Double = 600,
        provider: String? = nil,
        brokered: Bool = true,
        limits: String = "",
        unknownApps: String = "deny",
        geoClueConfiguration: String? = nil,
        subordinateUIDs: String? = nil,
        importedGeoClue: String? = nil,
        manifests: [String: String] = [:],
        agentExecutables: [String: String] = [:],
        backgroundGrace: Double = 10
    ) throws {
        temporary = try TemporaryDirectory(prefix: "geoclue")
        try FileManager.default.createDirectory(atPath: temporary.at("apps.d"), withIntermediateDirectories: true)
        socket = temporary.at("io.locd")
        busAddress = "unix:path=" + temporary.at("bus")
        try startBus()
        for (stem, text) in manifests { _ = try temporary.write("apps.d/\(stem).toml", text) }
        var imported = ""
        if let importedGeoClue {
            imported = "[geoclue]\nconfig = \"\(try temporary.write("imported/geoclue.conf", importedGeoClue))\""
        }
        try startLocd(
            promptTimeout: promptTimeout,
            agentWait: agentWait,
            provider: provider ?? Self.berlin,
            brokered: brokered,
            limits: limits,
            unknownApps: unknownApps,
            backgroundGrace: backgroundGrace,
            more: imported
        )
        if let geoClueConfiguration {
            try temporary.write("geoclue/geoclue.conf", geoClueConfiguration)
        }
        var options =
            geoClueConfiguration.map { _ in ["--geoclue-config", temporary.at("geoclue/geoclue.conf")] } ?? []
        options += agentExecutables.sorted { $0.key < $1.key }.flatMap {
            ["--agent-executable", "\($0.key)=\($0.value)"]
        }
        if let subordinateUIDs {
            try temporary.write("subuid", subordinateUIDs)
            options += ["--subordinate-uids", temporary.at("subuid")]
        } else {
            options += ["--subordinate-uids", ""]
        }
        try startBridge(options: options)
    }

    deinit {
        bridge?.stop()
        locd?.stop()
        bus?.kill9()
        temporary.remove()
    }

    private func startBus() throws {
        let template = try String(contentsOfFile: Self.fixture("system-bus.conf"), encoding: .utf8)
        let config = directory + "/system-bus.conf"
        try template.replacingOccurrences(of: "@SOCKET@", with: directory + "/bus")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let bus = try ScriptProcess(
            ["/usr/bin/dbus-daemon", "--config-file=" + config, "--nofork", "--print-address=1"],
            logPath: directory + "/bus.log"
        )
        self.bus = bus
        guard bus.waitFor("unix:path=") else { throw HarnessFailure("dbus-daemon did not start: \(bus.log)") }
    }

    static let berlin = """
        kind = "static"
        latitude = \(latitude)
        longitude = \(longitude)
        """

    /// The NMEA route of Fixtures/circle-walk.nmea (a walk in Tokyo, a fix every 10 s, about 100 m apart), replayed
    /// 30 times faster than real time.
    static let walk = """
        kind = "nmea"
        file = "\(fixture("circle-walk.nmea"))"
        speed-factor = 30
        """

    private func startLocd(
        promptTimeout: Double,
        agentWait: Double,
        provider: String,
        brokered: Bool,
        limits: String,
        unknownApps: String,
        backgroundGrace: Double,
        more: String = ""
    ) throws {
        // A manifest the test gave (a shipped one) stands instead of the harness's own of the same app.
        for app in Self.apps where !FileManager.default.fileExists(atPath: "\(directory)/apps.d/\(app).toml") {
            try """
            id = "\(app)"
            identity = "uid"
            users = ["\(getuid())", "\(Self.ordinaryUID)", "\(Self.otherUID)"]
            NSLocationWhenInUseUsageDescription = "Shows where you are"
            """.write(toFile: "\(directory)/apps.d/\(app).toml", atomically: true, encoding: .utf8)
        }
        for (app, executable) in Self.executableApps {
            try """
            id = "\(app)"
            identity = "executable"
            executables = ["\(executable)"]
            NSLocationWhenInUseUsageDescription = "Shows where you are"
            """.write(toFile: "\(directory)/apps.d/\(app).toml", atomically: true, encoding: .utf8)
        }
        // The broker as locd sees it: the binary's real path, which /proc/PID/exe of locd-geoclue shows. An app
        // with no manifest is refused at once (G3) unless the test asks for I11's default, "ask".
        // The broker is the harness's own user, which runs locd-geoclue here, and that executable (I13).
        let executable = Self.realPath(Self.binary("locd-geoclue"))
        let broker = "[[broker]]\nuser = \"\(getuid())\"\nexecutable = \"\(executable)\""
        try """
        socket = "\(socket)"
        unknown-brokered-apps = "\(unknownApps)"
        state-dir = "\(directory)/state"
        apps-dirs = ["\(directory)/apps.d"]
        admin-group = "root"
        [lifecycle]
        relaunch-window = 60.0
        background-grace = \(backgroundGrace)
        prompt-timeout = \(promptTimeout)
        agent-wait = \(agentWait)
        [limits]
        idle-timeout = 120.0
        \(limits.contains("subordinate-uids") ? "" : "subordinate-uids = \"\"")
        \(limits)
        [provider]
        \(provider)
        \(brokered ? broker : "")
        \(more)
        """.write(toFile: directory + "/locd.toml", atomically: true, encoding: .utf8)
        let locd = try ScriptProcess(
            [Self.binary("locd"), "--config", directory + "/locd.toml", "--log-level", "debug"],
            environment: ["INVOCATION_ID": "", "JOURNAL_STREAM": ""],
            logPath: directory + "/locd.log"
        )
        self.locd = locd
        let ready = try eventually(timeout: 20, every: 0.05) {
            guard locd.process.isRunning else { return false }
            return try locctl(["status"]).status == 0
        }
        guard ready else { throw HarnessFailure("locd did not start: \(locd.log)") }
    }

    private func startBridge(options: [String]) throws {
        let bridge = try ScriptProcess(
            [Self.binary("locd-geoclue"), "--socket", socket, "--log-level", "debug"] + options,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": busAddress, "INVOCATION_ID": "", "JOURNAL_STREAM": ""],
            logPath: directory + "/locd-geoclue.log"
        )
        self.bridge = bridge
        guard bridge.waitFor("serving org.freedesktop.GeoClue2") else {
            throw HarnessFailure("locd-geoclue did not start: \(bridge.log)")
        }
    }

    /// Kills locd with SIGKILL (a crash) and starts it again on the same configuration and state directory; its
    /// output goes to `log`. Returns once it answers `locctl status`.
    func crashAndRestartLocd(log: String = "locd-again.log") throws {
        locd?.kill9()
        let locd = try ScriptProcess(
            [Self.binary("locd"), "--config", directory + "/locd.toml", "--log-level", "debug"],
            environment: ["INVOCATION_ID": "", "JOURNAL_STREAM": ""],
            logPath: directory + "/" + log
        )
        self.locd = locd
        let ready = try eventually(timeout: 20, every: 0.05) {
            guard locd.process.isRunning else { return false }
            return try locctl(["status"]).status == 0
        }
        guard ready else { throw HarnessFailure("locd did not start again: \(locd.log)") }
    }

    /// What every client of the bus needs in its environment.
    var busEnvironment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }

    /// `locctl agent --answer allowWhileUsing` on locd's socket, as the person's own agent beside any GeoClue agent;
    /// its output goes to `log` in the harness's directory.
    func allowingAgent(log: String = "agent.log") throws -> ScriptProcess {
        try ScriptProcess(
            [Self.binary("locctl"), "agent", "--answer", "allowWhileUsing"],
            environment: ["LOCD_SOCKET": socket],
            logPath: directory + "/" + log
        )
    }

    func locctl(_ arguments: [String]) throws -> CommandResult {
        try Command.run([Self.binary("locctl")] + arguments, environment: ["LOCD_SOCKET": socket])
    }

    /// The project's GeoClue2 client script (Fixtures/geoclue_client.py) under the system Python, which has gi.
    func python(_ arguments: [String], timeout: Double = 20) throws -> CommandResult {
        try Command.run(
            ["/usr/bin/python3", Self.fixture("geoclue_client.py")] + arguments,
            environment: busEnvironment,
            timeout: timeout
        )
    }

    /// The script run as `uid` (and its gid), with no supplementary groups and no capabilities, as an ordinary
    /// desktop user runs a GeoClue client: the harness's directory is opened to others so that it reaches the bus.
    func python(_ arguments: [String], asUID uid: UInt32, timeout: Double = 20) throws -> CommandResult {
        try Command.run(
            unprivileged(uid) + ["/usr/bin/python3", Self.fixture("geoclue_client.py")] + arguments,
            environment: busEnvironment.merging(["HOME": "/nonexistent"]) { $1 },
            timeout: timeout
        )
    }

    /// The command that runs the rest of a command line as `uid` and its gid, with no supplementary groups and no
    /// capabilities; it opens the harness's directory to others, so that the bus socket in it can be reached.
    func unprivileged(_ uid: UInt32) -> [String] {
        chmod(directory, 0o755)
        return [
            "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all",
        ]
    }

    /// The script in a mode that keeps running (`hold`), its output read while it runs; as `uid` (as
    /// ``python(_:asUID:timeout:)`` runs it) when one is given.
    func pythonRunning(_ arguments: [String], asUID uid: UInt32? = nil) throws -> ScriptProcess {
        try ScriptProcess(
            (uid.map(unprivileged) ?? []) + ["/usr/bin/python3", Self.fixture("geoclue_client.py")] + arguments,
            environment: busEnvironment.merging(uid == nil ? [:] : ["HOME": "/nonexistent"]) { $1 },
            logPath: directory + "/client-\(UUID().uuidString.prefix(6)).log"
        )
    }

    func gdbus(_ arguments: [String]) throws -> CommandResult {
        try Command.run(["/usr/bin/gdbus"] + arguments, environment: busEnvironment)
    }

    func busctl(_ arguments: [String]) throws -> CommandResult {
        try Command.run(["/usr/bin/busctl", "--address=" + busAddress] + arguments)
    }

    /// The Manager's `InUse`, as busctl prints it: `b true` or `b false`.
    func inUse() throws -> String {
        try busctl([
            "get-property", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
            "org.freedesktop.GeoClue2.Manager", "InUse",
        ]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// locd's sessions of `app`, from `locctl sessions --json`.
    func sessions(of app: String) throws -> [[String: Any]] {
        let result = try locctl(["sessions", "--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        let list = parsed as? [[String: Any]] ?? (parsed as? [String: Any])?["sessions"] as? [[String: Any]] ?? []
        return list.filter { $0["appId"] as? String == app }
    }

    /// locd's entry of `user`'s app `app`, from `locctl apps --json`: the one whose `user` is that uid, not the
    /// installed app's entry of no user nor another user's app of the same id (SEMANTICS H1, H2).
    func app(_ app: String, of user: UInt32 = getuid()) throws -> [String: Any]? {
        let output = try locctl(["apps", "--json"]).output
        let apps = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
        return apps.first { $0["appId"] as? String == app && $0["user"] as? Int == Int(user) }
    }

    /// `path` with every link resolved, as the kernel shows an executable in /proc/PID/exe.
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    /// A binary of this package, beside the test bundle.
    static func binary(_ name: String) -> String { DaemonProcess.executable(name) }
}

/// A part of the harness did not start; the description carries its log.
struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
