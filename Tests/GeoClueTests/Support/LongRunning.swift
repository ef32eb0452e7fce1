import Foundation
import LocationTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A program that runs beside the test (a bus, a daemon, a client that holds on): its output goes to a file
/// that the test reads while it runs; it is stopped with SIGTERM when the test is done.
final class LongRunning {
    let process = Process()
    let logPath: String
    let input = Pipe()

    init(_ arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = input
        try process.run()
    }

    deinit { kill9() }

    /// What it printed so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until its output has a line containing `text`; whether it came in `timeout` seconds.
    func waitFor(_ text: String, timeout: Double = 20) -> Bool {
        eventually(timeout: timeout, every: 0.05) { log.contains(text) || !process.isRunning } && log.contains(text)
    }

    /// SIGTERM, and waits for the exit; SIGKILL if it is still running 5 s later (a child inherits SIG_IGN for
    /// SIGTERM when the test runner ignores it, and dbus-daemon and Python then never see it).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        if !eventually(timeout: 5, every: 0.05, { !process.isRunning }) { kill9() }
        process.waitUntilExit()
    }

    /// Closes its standard input, the way the project's client script is told to leave, and waits for the exit.
    func closeInput() {
        try? input.fileHandleForWriting.close()
        if !eventually(timeout: 10, every: 0.05, { !process.isRunning }) { kill9() }
        process.waitUntilExit()
    }

    /// SIGKILL, and waits for the exit: for dbus-daemon, which has nothing to save and ignores SIGTERM when its
    /// parent ignores it.

    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
