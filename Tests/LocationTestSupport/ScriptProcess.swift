import Foundation
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A program that runs beside a test (a stand-in service, a bus, a daemon, a client that holds on): its output
/// goes to a file the test reads while it runs (lines of text, or one JSON object a line), it reads commands on
/// its standard input, and it is killed when the test drops it.
package final class ScriptProcess: @unchecked Sendable {
    // @unchecked: `process` and `input` are set once in init; Process and FileHandle are used from one test.
    package let process = Process()
    package let logPath: String
    package let input = Pipe()

    /// The fixtures shared by the test targets: `Tests/LocationTestSupport/Fixtures/NAME`.
    package static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
            .appendingPathComponent(name).path
    }

    package init(_ arguments: [String], environment: [String: String] = [:], logPath: String) throws {
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

    /// Everything it printed so far.
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The lines it printed that are JSON objects, in order.
    package var objects: [JSONObject] {
        log.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8))?.objectValue }
    }

    /// Sends one line to its standard input.
    package func send(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until it printed an object for which `matches` holds, and returns the first; `nil` if it did not
    /// within `timeout` seconds, or exited.
    package func waitFor(timeout: Double = 20, _ matches: (JSONObject) -> Bool) -> JSONObject? {
        var found: JSONObject?
        _ = eventually(timeout: timeout, every: 0.02) {
            found = objects.first(where: matches)
            return found != nil || !process.isRunning
        }
        return found ?? objects.first(where: matches)
    }

    /// Waits until its output has a line containing `text`; whether it came in `timeout` seconds.
    package func waitFor(_ text: String, timeout: Double = 20) -> Bool {
        eventually(timeout: timeout, every: 0.05) { log.contains(text) || !process.isRunning } && log.contains(text)
    }

    /// SIGTERM, and waits for the exit; SIGKILL if it is still running 5 s later (a child inherits SIG_IGN for
    /// SIGTERM when the test runner ignores it, and dbus-daemon and Python then never see it).
    package func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        if !eventually(timeout: 5, every: 0.05, { !process.isRunning }) { kill9() }
        process.waitForExit()
    }

    /// Closes its standard input, the way a script that reads commands is told to leave, and waits for the exit;
    /// SIGKILL if it has not left 10 s later.
    package func closeInput() {
        try? input.fileHandleForWriting.close()
        if !eventually(timeout: 10, every: 0.05, { !process.isRunning }) { kill9() }
        process.waitForExit()
    }

    /// SIGKILL, and waits for the exit: for dbus-daemon, which has nothing to save and ignores SIGTERM when its
    /// parent ignores it.
    package func kill9() {
        if process.isRunning { process.signalAndWait(SIGKILL) }
    }
}
