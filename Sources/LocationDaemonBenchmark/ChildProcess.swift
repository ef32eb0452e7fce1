import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A long-running child (a bus, a service, an agent): its output goes to a log file; ``stop()`` ends it.
final class ChildProcess {
    let name: String
    let logPath: String
    private let process = Process()

    init(name: String, _ arguments: [String], environment: [String: String], logPath: String) throws {
        self.name = name
        self.logPath = logPath
        let log = process.prepare(arguments, environment: environment, logPath: logPath)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    func stop() {
        Self.end(process)
    }

    func logTail() -> String {
        Self.tail(logPath)
    }

    /// Waits until its log has a line containing `text`; fails when it exits first or `timeout` seconds pass.
    func waitForLog(_ text: String, timeout: Double) throws {
        let deadline = Clock.now + timeout
        while Clock.now < deadline {
            if ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains(text) { return }
            guard process.isRunning else { break }
            usleep(10_000)
        }
        throw BenchError.failed("\(name) did not say \"\(text)\" in \(timeout) s; its log:\n\(logTail())")
    }

    /// SIGTERM, then SIGKILL when it still runs 5 s later; waits for the exit.
    static func end(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Clock.now + 5
        while process.isRunning, Clock.now < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The last lines of a log.
    static func tail(_ path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(10).joined(separator: "\n")
    }
}
