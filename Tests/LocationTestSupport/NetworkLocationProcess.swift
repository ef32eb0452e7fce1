import Foundation
import JSON
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The real `locd-network` binary, started on a socket of its own in `directory`, on the bus the test gives it.
package final class NetworkLocationProcess: @unchecked Sendable {
    // @unchecked: set once in init; driven from one test.
    package let socketPath: String
    package let logPath: String
    private let process = Process()
    private let notify: NotifySocket

    /// The `locd-network` binary beside the test bundle.
    /// The test's environment for a locd-network it starts itself: `READY=1` to `notify`, no socket passed (it binds
    /// its `--socket`), the system bus at `bus`.
    package static func environment(notify: String, bus: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify
        environment.removeValue(forKey: "LISTEN_FDS")
        environment.removeValue(forKey: "LISTEN_PID")
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus
        return environment
    }

    package static var binary: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("locd-network").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return ".build/debug/locd-network"
    }

    /// Starts it and waits for its `READY=1`.
    /// - Parameters:
    ///   - requestTimeout: `--request-timeout`, short so that a dripping service is cut off soon.
    ///   - idleTimeout: `--idle-timeout`, long unless a test of it sets one: the suite runs hundreds of tests side
    ///     by side on two cores, where a client's first call can wait behind other tests for longer than the
    ///     default 10 s (as ``DaemonProcess/withPatientIdleTimeout(_:)`` has it for locd).
    ///   - arguments: more options (`--user-agent`, `--ca-file`).
    ///   - environment: more environment (`https_proxy`, `no_proxy`).
    package convenience init(
        directory: String,
        bus: PrivateSystemBus?,
        requestTimeout: Double = 2,
        idleTimeout: Double = 120,
        arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        try self.init(
            directory: directory,
            busAddress: bus?.address,
            requestTimeout: requestTimeout,
            idleTimeout: idleTimeout,
            arguments: arguments,
            environment: environment
        )
    }

    /// Starts it on the bus at `busAddress` (none: an address where no bus listens) and waits for its `READY=1`.
    package init(
        directory: String,
        busAddress: String?,
        requestTimeout: Double = 2,
        idleTimeout: Double = 120,
        arguments: [String] = [],
        environment extra: [String: String] = [:]
    ) throws {
        socketPath = directory + "/network.sock"
        logPath = directory + "/locd-network.log"
        notify = try NotifySocket(path: directory + "/network-notify")
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments =
            [
                "--socket", socketPath, "--log-level", "debug", "--request-timeout", String(requestTimeout),
                "--idle-timeout", String(idleTimeout),
            ] + arguments
        var environment = Self.environment(notify: notify.path, bus: busAddress ?? "unix:path=\(directory)/no-bus")
        // The test's own proxy only: one the machine names would not reach the stand-ins.
        for name in ["https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "http_proxy", "HTTP_PROXY"] {
            environment.removeValue(forKey: name)
        }
        environment.merge(extra) { $1 }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardError = log
        process.standardOutput = log
        try process.run()
        _ = try notify.waitFor("READY=1", timeout: 20, while: { [process] in process.isRunning })
    }

    deinit { stop() }

    /// What it logged so far.
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    package var isRunning: Bool { process.isRunning }

    /// SIGTERM, and waits for the exit (SIGKILL after 5 s).
    package func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        if !eventually(timeout: 5, every: 0.02, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitForExit()
    }

    /// Settings for a Watch, as locd's network provider sends them.
    package static func settings(
        url: String,
        considerIp: Bool = false,
        interval: Double = 300,
        minimumInterval: Double = 1,
        accessPoints: String = "auto"
    ) -> JSONObject {
        [
            "url": .string(url), "considerIp": .bool(considerIp), "interval": .double(interval),
            "minimumInterval": .double(minimumInterval), "accessPoints": .string(accessPoints),
        ]
    }
}
