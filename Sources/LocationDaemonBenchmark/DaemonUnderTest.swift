import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `locd` the benchmark starts itself: its own socket, state directory and configuration in a
/// temporary directory, and `READY=1` read from its own `NOTIFY_SOCKET`.
final class DaemonUnderTest {
    let binary: String
    let directory: String
    let socketPath: String
    let configPath: String
    private let notify: NotifySocket
    private var process: Process?
    private let logPath: String

    /// Writes the configuration; ``start()`` runs the daemon.
    /// - Parameters:
    ///   - relaunchWindow: how long sessions of a vanished client linger (the deadline scenario's deadline).
    init(binary: String, directory: String, relaunchWindow: Double, maximumConnections: Int) throws {
        self.binary = binary
        self.directory = directory
        socketPath = directory + "/io.locd"
        configPath = directory + "/locd.toml"
        logPath = directory + "/locd.log"
        let apps = directory + "/apps.d"
        try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
        // Unknown apps are allowed, so no manifest is read: start-up measures the store, not TOML files. The
        // scenarios' thousands of apps and sessions are all the bench's uid's, so max-apps-per-uid (F20) and
        // max-sessions-per-uid (H8) are out of their way.
        let config = """
            socket = "\(socketPath)"
            state-dir = "\(directory)/state"
            apps-dirs = ["\(apps)"]
            allow-unknown-apps = true
            admin-group = "root"
            [lifecycle]
            background-grace = 10.0
            relaunch-window = \(relaunchWindow)
            relaunch-adopt = \(relaunchWindow)
            prompt-timeout = 600.0
            [limits]
            max-sessions-per-app = 128
            max-clients-per-app = 128
            max-apps-per-uid = 1000000
            max-sessions-per-uid = 1000000
            max-connections = \(maximumConnections)
            max-write-buffer = 1073741824
            # A fixed point (U28's built-in providers find nothing here): the fan-out measures delivery.
            [provider]
            kind = "static"
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        notify = try NotifySocket(path: directory + "/notify")
    }

    deinit { stop() }

    /// Starts the daemon and waits for `READY=1`; returns the seconds from exec to `READY=1` and the
    /// `STATUS=` text that came with it.
    @discardableResult
    func start() throws -> (seconds: Double, status: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--config", configPath, "--log-level", "warning"]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        for key in ["INVOCATION_ID", "JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID"] {
            environment.removeValue(forKey: key)
        }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        log?.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        let started = Clock.now
        try process.run()
        self.process = process
        do {
            let ready = try notify.waitFor("READY=1", timeout: 60, while: { process.isRunning })
            let status = ready.lines.first(where: { $0.hasPrefix("STATUS=") }).map { String($0.dropFirst(7)) } ?? ""
            return (ready.at - started, status)
        } catch {
            throw BenchError.failed("\(error)\nlocd's log:\n\(logTail())")
        }
    }

    var pid: Int32 { process?.processIdentifier ?? 0 }
    var stats: ProcessStats { ProcessStats(pid: pid) }
    var isRunning: Bool { process?.isRunning ?? false }

    /// SIGTERM, and waits for the exit.
    func stop() {
        guard let process else { return }
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        self.process = nil
    }

    /// The last lines locd logged, for a failure's message.
    func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(10).joined(separator: "\n")
    }

    /// Fails with locd's log when it has exited.
    func checkAlive(_ what: String) throws {
        guard isRunning else { throw BenchError.failed("locd exited during \(what); its log:\n\(logTail())") }
    }
}
