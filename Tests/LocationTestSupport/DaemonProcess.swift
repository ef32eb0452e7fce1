import Foundation
import JSON
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The real `locd` binary, started on a temporary socket, state directory and apps directory.
///
/// Start-up is synchronised on the daemon's own `READY=1`, read from a `NOTIFY_SOCKET` the test binds,
/// never on a sleep.
package final class DaemonProcess {
    package let directory: URL
    package let socketPath: String
    package let stateDirectory: String
    package let appsDirectory: String
    package let configPath: String
    package private(set) var process: Process?
    package let notify: NotifySocket
    /// Everything the daemon printed on stderr so far (read when it has exited).
    package private(set) var errorOutput = ""

    /// Writes the config and manifests; call ``start()`` to run the daemon.
    /// - Parameters:
    ///   - manifests: file name stem → TOML text.
    ///   - settings: extra top-level TOML lines and tables appended to the config.
    ///   - builtInProviders: whether the config is left with no provider, so that locd uses its built-in ones (U28);
    ///     otherwise settings that write none get the demo's fixed point (``withTestProvider(_:)``).
    package init(
        manifests: [String: String] = DaemonProcess.standardManifests,
        settings: String = DaemonProcess.fastLifecycle,
        builtInProviders: Bool = false
    )
        throws
    {
        directory = URL(fileURLWithPath: try TemporaryDirectory(prefix: "locd-test").path)
        socketPath = directory.appendingPathComponent("io.locd").path
        stateDirectory = directory.appendingPathComponent("state").path
        appsDirectory = directory.appendingPathComponent("apps.d").path
        configPath = directory.appendingPathComponent("locd.toml").path
        try FileManager.default.createDirectory(atPath: appsDirectory, withIntermediateDirectories: true)
        for (name, text) in manifests {
            try text.write(toFile: "\(appsDirectory)/\(name).toml", atomically: true, encoding: .utf8)
        }
        let patient = Self.withOwnSubordinateUIDs(Self.withPatientAgentWait(Self.withPatientIdleTimeout(settings)))
        let config = """
            socket = "\(socketPath)"
            state-dir = "\(stateDirectory)"
            apps-dirs = ["\(appsDirectory)"]
            admin-group = "root"
            \(builtInProviders ? patient : Self.withTestProvider(patient))
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        notify = try NotifySocket(path: directory.appendingPathComponent("notify").path)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `settings` with `subordinate-uids = ""` unless they name a file of their own: a test never reads the host's
    /// `/etc/subuid` (the default), whose ranges (Debian's `useradd` writes one for each user) would count the
    /// test's uids against the host's users (SEMANTICS H9).
    package static func withOwnSubordinateUIDs(_ settings: String) -> String {
        guard !settings.contains("subordinate-uids") else { return settings }
        let line = "subordinate-uids = \"\""
        guard let table = settings.range(of: "[limits]\n") else { return settings + "\n[limits]\n" + line }
        return settings.replacingCharacters(in: table, with: "[limits]\n" + line + "\n")
    }

    /// `settings` with `idle-timeout = 120` unless it sets one: the suite runs hundreds of tests side by side on
    /// two cores, where a client's first call can wait behind other tests for longer than the default 10 s,
    /// and F13's own tests set the timeout they test.
    package static func withPatientIdleTimeout(_ settings: String) -> String {
        guard !settings.contains("idle-timeout") else { return settings }
        let line = "idle-timeout = 120.0"
        guard let table = settings.range(of: "[limits]\n") else { return settings + "\n[limits]\n" + line }
        return settings.replacingCharacters(in: table, with: "[limits]\n" + line + "\n")
    }

    /// `settings` with a `[provider]` table of the demo's fixed point (Tokyo Station) unless they write a provider:
    /// the built-in providers, gpsd and the network position (U28), find nothing on a test machine, and the tests
    /// check the fixes they are given. Settings that import GeoClue's configuration (`[geoclue]`) are left as they are:
    /// its sources are the providers they test (G31).
    package static func withTestProvider(_ settings: String) -> String {
        guard !settings.contains("provider]"), !settings.contains("[geoclue]") else { return settings }
        return settings + "\n[provider]\nkind = \"static\"\n"
    }

    /// `settings` with `agent-wait = 600` unless it sets one: tests answer prompts with calls and agents started
    /// after the prompt, and on a loaded machine they could come later than the default 5 s (P14's own tests set
    /// the wait they test).
    package static func withPatientAgentWait(_ settings: String) -> String {
        guard !settings.contains("agent-wait") else { return settings }
        let line = "agent-wait = 600.0"
        guard let table = settings.range(of: "[lifecycle]\n") else { return settings + "\n[lifecycle]\n" + line }
        return settings.replacingCharacters(in: table, with: "[lifecycle]\n" + line + "\n")
    }

    /// A `[[broker]]` table (SEMANTICS I13) of `user` (by default the test's own, which runs the brokers here) and,
    /// if given, `executable`: written after every top-level key of the settings, as TOML wants a table.
    package static func broker(user: UInt32 = getuid(), executable: String?) -> String {
        "\n[[broker]]\nuser = \"\(user)\"\n" + (executable.map { "executable = \"\($0)\"\n" } ?? "")
    }

    /// Lifecycle settings in fractions of a second, so tests of grace and windows are quick.
    package static let fastLifecycle = lifecycle()

    /// `allow-unknown-apps = false` and a `[lifecycle]` table with these windows, in seconds.
    package static func lifecycle(
        backgroundGrace: Double = 0.4,
        relaunchWindow: Double = 2,
        relaunchAdopt: Double = 1,
        promptTimeout: Double = 30
    ) -> String {
        """
        allow-unknown-apps = false
        [lifecycle]
        background-grace = \(backgroundGrace)
        relaunch-window = \(relaunchWindow)
        relaunch-adopt = \(relaunchAdopt)
        prompt-timeout = \(promptTimeout)
        """
    }

    /// Manifests of `apps` that any process may say `Hello` as, with these usage descriptions: file name
    /// stem → TOML text, for ``init(manifests:settings:)``.
    package static func manifests(_ apps: [String], whenInUse: String, always: String? = nil) -> [String: String] {
        var manifests: [String: String] = [:]
        for app in apps {
            manifests[app] = """
                id = "\(app)"
                identity = "any"
                NSLocationWhenInUseUsageDescription = "\(whenInUse)"
                """
            if let always { manifests[app]? += "\nNSLocationAlwaysAndWhenInUseUsageDescription = \"\(always)\"" }
        }
        return manifests
    }

    package static let standardManifests: [String: String] = [
        "com.ex.maps": """
        id = "com.ex.maps"
        identity = "any"
        NSLocationWhenInUseUsageDescription = "Shows you on the map"
        NSLocationAlwaysAndWhenInUseUsageDescription = "Tracks your trips"
        [NSLocationTemporaryUsageDescriptionDictionary]
        Navigation = "Turn-by-turn needs your precise location"
        """,
        "com.ex.run": """
        id = "com.ex.run"
        identity = "any"
        NSLocationWhenInUseUsageDescription = "Records your run"
        UIBackgroundModes = ["location"]
        """,
        "com.ex.explicit": """
        id = "com.ex.explicit"
        identity = "any"
        NSLocationWhenInUseUsageDescription = "Explicit sessions only"
        CLRequireExplicitServiceSession = true
        """,
    ]

    /// The `locd` binary beside the test bundle.
    package static var binary: String { executable("locd") }

    /// A binary of this package beside the test bundle, `.build/debug/NAME` when there is none.
    package static func executable(_ name: String) -> String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return ".build/debug/" + name
    }

    /// Starts the daemon and waits for its `READY=1`.
    /// - Parameter launcher: a command that execs the daemon in the same process (`prlimit --nofile=…`).
    @discardableResult
    package func start(
        extraArguments: [String] = [],
        environment: [String: String] = [:],
        launcher: [String] = []
    ) throws -> [String] {
        let process = Process()
        let command = launcher + [Self.binary, "--config", configPath, "--log-level", "debug"] + extraArguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        env.removeValue(forKey: "INVOCATION_ID")
        env.removeValue(forKey: "JOURNAL_STREAM")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        // A file, not a pipe: a pipe nobody drains while the test runs would block a chatty daemon.
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        return try notify.waitFor("READY=1", timeout: 20, while: { process.isRunning })
    }

    package var pid: Int32 { process?.processIdentifier ?? 0 }

    /// Sends a signal to the daemon.
    package func signal(_ number: Int32) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, number)
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    package func stop() -> Int32 {
        guard let process else { return 0 }
        let status = process.signalAndWait(SIGTERM).status
        collectOutput()
        self.process = nil
        return status
    }

    /// SIGKILL: a crash at this very moment.
    package func crash() {
        guard let process else { return }
        process.signalAndWait(SIGKILL)
        collectOutput()
        self.process = nil
    }

    private func collectOutput() {
        errorOutput = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// What the daemon has printed on stderr so far, while it runs.
    package var logSoFar: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Where the daemon's stderr goes, across every start.
    private var logPath: String { directory.appendingPathComponent("locd.stderr").path }

    /// The first column of the first row `query` finds in the daemon's store (`?` bound to `arguments` in order),
    /// read with Python's sqlite3 as an outsider would; empty for no row or a null.
    package func storedValue(_ query: String, _ arguments: [String] = []) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            [
                "-c",
                "import sqlite3, sys; row = sqlite3.connect(sys.argv[1]).execute(sys.argv[2], sys.argv[3:]).fetchone(); "
                    + "print(row[0] if row and row[0] is not None else '')",
                stateDirectory + "/locd.sqlite", query,
            ] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitForExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A fresh client connection.
    package func connect() throws -> VarlinkClient {
        try VarlinkClient(path: socketPath, timeout: 10)
    }

    /// An admin connection that has set `appID`'s record to `setting` with `Admin.SetAuthorization`.
    @discardableResult
    package func authorize(_ appID: String, _ setting: String) throws -> VarlinkClient {
        let admin = try connect()
        try admin.call("io.locd.Admin.SetAuthorization", ["appId": .string(appID), "setting": .string(setting)])
        return admin
    }

    /// A client bound to `appID` by `Hello`.
    package func app(_ appID: String, state: String? = nil) throws -> VarlinkClient {
        let client = try connect()
        var parameters: JSONObject = ["appId": .string(appID)]
        if let state { parameters["state"] = .string(state) }
        try client.call("io.locd.App.Hello", parameters)
        return client
    }
}
